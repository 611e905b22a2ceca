package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// TestSelectorFilterUnderStrict: under --strict, a @workload file whose
// selector (containers.name=proxy) matches nothing admits a Deployment
// without a proxy container untouched and without a warning, and still
// patches one with a proxy; the same selector under an exact kind.name
// target stays an error, so that Deployment is denied.
func TestSelectorFilterUnderStrict(t *testing.T) {
	const ns = "filters"
	o := newOwnWebhook(t, "filters-e2e", []admissionregistrationv1.RuleWithOperations{deploymentRule()})
	o.namespace(t, ns)
	o.registry(t, cluster.RegistryNamespace, "filters", map[string]string{
		"proxy.kpatch": "[@workload.*.containers.name=proxy]\nimage.tag: v1.30.1\n",
		"typo.kpatch":  "[filters/deployment.typo.containers.name=proxy]\nimage.tag: v1.30.1\n",
	})
	o.start(t, "--strict")

	var warnings warningRecorder
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = &warnings
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	with := deployment(ns, "with-proxy")
	with.Spec.Template.Spec.Containers = append(with.Spec.Template.Spec.Containers, corev1.Container{Name: "proxy", Image: "envoy:v1.29.0"})
	eventually(t, 30*time.Second, func() error {
		probe := with.DeepCopy()
		if err := c.Create(ctx, probe, client.DryRunAll); err != nil {
			return err
		}
		if got := probe.Spec.Template.Spec.Containers[1].Image; got != "envoy:v1.30.1" {
			return fmt.Errorf("proxy image %s, want envoy:v1.30.1", got)
		}
		return nil
	})

	without := deployment(ns, "without-proxy")
	want := without.Spec.Template.Spec.Containers[0].Image
	if err := c.Create(ctx, without); err != nil {
		t.Fatalf("a Deployment without a proxy container was refused under --strict: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(without), without); err != nil {
		t.Fatal(err)
	}
	if cs := without.Spec.Template.Spec.Containers; len(cs) != 1 || cs[0].Image != want {
		t.Errorf("containers %+v, want the one container as created", cs)
	}
	if w := warnings.String(); w != "" {
		t.Errorf("warnings: %s", w)
	}

	err = c.Create(ctx, deployment(ns, "typo"), client.DryRunAll)
	if err == nil || !strings.Contains(err.Error(), "typo.kpatch") {
		t.Errorf("under kind.name a selector matching nothing must deny under --strict, got %v", err)
	}
}
