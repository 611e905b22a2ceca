package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// setIfAbsentFiles give every container a CPU request of 250m unless it
// has one, and label the Deployment with an ordinary entry, which shows
// that the file applied.
var setIfAbsentFiles = map[string]string{
	"defaults.kpatch": "[setifabsent/deployment.*]\nlabels.defaults: applied\n" +
		"[setifabsent/deployment.*.containers]\nresources.requests.cpu?: 250m\n",
}

// TestSetIfAbsentAtAdmission: on the real API server a `?` entry fills
// the CPU request a container lacks and keeps the one a container has,
// in one Deployment; and on an UPDATE by a controller that changed the
// request the file filled, the webhook patches the object again (the
// label the controller dropped comes back) and leaves the controller's
// request alone.
func TestSetIfAbsentAtAdmission(t *testing.T) {
	const ns = "setifabsent"
	o := newOwnWebhook(t, "setifabsent-e2e", []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
	}})
	o.namespace(t, ns)
	o.registry(t, cluster.RegistryNamespace, "setifabsent", setIfAbsentFiles)
	o.start(t, "--operations", "CREATE,UPDATE")
	ctx := context.Background()
	c := env.Client

	probe := deployment(ns, "probe")
	eventually(t, 30*time.Second, func() error {
		p := probe.DeepCopy()
		if err := c.Create(ctx, p, client.DryRunAll); err != nil {
			return err
		}
		if p.Labels["defaults"] != "applied" {
			return fmt.Errorf("not patched yet: labels %v", p.Labels)
		}
		return nil
	})

	d := deployment(ns, "web")
	d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{
		Name: "own", Image: "nginx:1.25",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
	})
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
		t.Fatal(err)
	}
	if got := cpuRequests(d); got["app"] != "250m" || got["own"] != "500m" {
		t.Fatalf("CPU requests %v after CREATE, want app 250m (filled) and own 500m (kept)", got)
	}

	// a controller (an autoscaler of requests, say) changes the request
	// the file filled, and drops the label the file set
	d.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("750m")
	delete(d.Labels, "defaults")
	if err := c.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
		t.Fatal(err)
	}
	if d.Labels["defaults"] != "applied" {
		t.Fatalf("labels %v after UPDATE: the webhook did not patch the UPDATE", d.Labels)
	}
	if got := cpuRequests(d); got["app"] != "750m" || got["own"] != "500m" {
		t.Errorf("CPU requests %v after UPDATE, want app 750m (the controller's) and own 500m", got)
	}
}

// cpuRequests returns each container's CPU request by container name.
func cpuRequests(d *appsv1.Deployment) map[string]string {
	out := map[string]string{}
	for _, c := range d.Spec.Template.Spec.Containers {
		if q, ok := c.Resources.Requests[corev1.ResourceCPU]; ok {
			out[c.Name] = q.String()
		}
	}
	return out
}
