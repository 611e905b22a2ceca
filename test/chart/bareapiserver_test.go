package chart

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"kpatch.dev/kpatch/test/cluster"
)

// limitCriticalPods configures the API server's ResourceQuota admission
// as GKE and other managed platforms do: a pod of a system priority class
// is admitted only into a namespace holding a ResourceQuota scoped to its
// class.
const limitCriticalPods = `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: ResourceQuota
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: ResourceQuotaConfiguration
      limitedResources:
        - resource: pods
          matchScopes:
            - scopeName: PriorityClass
              operator: In
              values: [system-node-critical, system-cluster-critical]
`

// TestBareAPIServer starts an API server with no CRDs, whose ResourceQuota
// admission limits the system priority classes as GKE does, and installs
// the chart's defaults there: every object passes a server-side dry run
// (nothing needs cert-manager or the Prometheus operator), and the
// webhook's pod (system-cluster-critical, outside kube-system), refused
// while the release namespace holds no quota for its class, is admitted
// once the chart's own ResourceQuota is in place.
func TestBareAPIServer(t *testing.T) {
	if reason := cluster.SkipReason(); reason != "" {
		t.Skip(reason)
	}
	config := filepath.Join(t.TempDir(), "admission.yaml")
	if err := os.WriteFile(config, []byte(limitCriticalPods), 0o644); err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: cluster.ControlPlaneDir()}
	env.ControlPlane.GetAPIServer().Configure().Set("admission-control-config-file", config)
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		t.Fatal(err)
	}
	objs := render(t, nil)
	d := typed[appsv1.Deployment](t, objs, "Deployment")
	if d.Spec.Template.Spec.PriorityClassName != "system-cluster-critical" {
		t.Fatalf("priorityClassName %q", d.Spec.Template.Spec.PriorityClassName)
	}
	createPod := func() error {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "webhook", Namespace: namespace}, Spec: *d.Spec.Template.Spec.DeepCopy()}
		pod.Spec.ServiceAccountName = ""
		return c.Create(ctx, pod, client.DryRunAll)
	}
	// the API server limits the class: without a quota the pod is refused
	if err := createPod(); err == nil || !strings.Contains(err.Error(), "insufficient quota to match these scopes") {
		t.Fatalf("without a ResourceQuota: %v, want insufficient quota", err)
	}
	quota := typed[corev1.ResourceQuota](t, objs, "ResourceQuota")
	if quota == nil {
		t.Fatal("the defaults render no ResourceQuota")
	}
	for _, u := range objs {
		if u.GetNamespace() == "" && u.GetKind() != "ClusterRole" && u.GetKind() != "ClusterRoleBinding" && u.GetKind() != "MutatingWebhookConfiguration" &&
			u.GetKind() != "ValidatingWebhookConfiguration" {
			t.Errorf("%s %s has no namespace", u.GetKind(), u.GetName())
		}
		if u.GetKind() == "ResourceQuota" {
			continue // created for real below
		}
		if err := c.Create(ctx, u.DeepCopy(), client.DryRunAll, client.FieldValidation("Strict")); err != nil {
			t.Errorf("the defaults on a bare API server: %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
	if err := c.Create(ctx, quota, client.FieldValidation("Strict")); err != nil {
		t.Fatal(err)
	}
	// no controller-manager here: the quota's usage is recorded by hand, as
	// its controller would
	quota.Status = corev1.ResourceQuotaStatus{Hard: quota.Spec.Hard, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}}
	if err := c.Status().Update(ctx, quota); err != nil {
		t.Fatal(err)
	}
	if err := createPod(); err != nil {
		t.Errorf("with the chart's ResourceQuota: %v", err)
	}
}
