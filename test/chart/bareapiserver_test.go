package chart

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/test/cluster"
)

// limitCriticalPods configures the API server's ResourceQuota admission
// as some managed platforms do: a pod of a system priority class needs a
// ResourceQuota scoped to its class.
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

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// documentedQuota is the ResourceQuota docs/security.md gives for the
// priority class.
func documentedQuota(t *testing.T) *corev1.ResourceQuota {
	t.Helper()
	src, err := os.ReadFile(securityDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range yamlBlock.FindAllStringSubmatch(string(src), -1) {
		if !strings.Contains(m[1], "kind: ResourceQuota") {
			continue
		}
		var q corev1.ResourceQuota
		if err := yaml.UnmarshalStrict([]byte(m[1]), &q); err != nil {
			t.Fatalf("%s: the ResourceQuota: %v", securityDoc, err)
		}
		return &q
	}
	t.Fatalf("%s: no ResourceQuota", securityDoc)
	return nil
}

// TestBareAPIServer starts an API server with no CRDs, whose ResourceQuota
// admission limits the system priority classes as some managed platforms
// do. Every object of the chart's defaults passes a server-side dry run
// there: nothing needs cert-manager or the Prometheus operator. The
// chart's pod (system-cluster-critical, outside kube-system) is refused,
// and admitted once the release namespace holds the ResourceQuota that
// docs/security.md gives. (On a default API server it needs none: the
// server-side dry run of every mode creates it in a namespace without a
// quota.)
func TestBareAPIServer(t *testing.T) {
	if reason := cluster.SkipReason(); reason != "" {
		t.Skip(reason)
	}
	quota := documentedQuota(t)
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
	for _, u := range objs {
		if u.GetNamespace() == "" && u.GetKind() != "ClusterRole" && u.GetKind() != "ClusterRoleBinding" && u.GetKind() != "MutatingWebhookConfiguration" &&
			u.GetKind() != "ValidatingWebhookConfiguration" {
			t.Errorf("%s %s has no namespace", u.GetKind(), u.GetName())
		}
		if err := c.Create(ctx, u.DeepCopy(), client.DryRunAll, client.FieldValidation("Strict")); err != nil {
			t.Errorf("the defaults on a bare API server: %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
	d := typed[appsv1.Deployment](t, objs, "Deployment")
	createPod := func() error {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "webhook", Namespace: namespace}, Spec: *d.Spec.Template.Spec.DeepCopy()}
		pod.Spec.ServiceAccountName = ""
		return c.Create(ctx, pod, client.DryRunAll)
	}
	if d.Spec.Template.Spec.PriorityClassName != "system-cluster-critical" {
		t.Fatalf("priorityClassName %q", d.Spec.Template.Spec.PriorityClassName)
	}
	err = createPod()
	if err == nil || !strings.Contains(err.Error(), "insufficient quota to match these scopes") {
		t.Fatalf("without a ResourceQuota: %v, want insufficient quota", err)
	}
	if quota.Namespace != namespace {
		t.Fatalf("the documented ResourceQuota is for namespace %q", quota.Namespace)
	}
	if err := c.Create(ctx, quota); err != nil {
		t.Fatal(err)
	}
	// no controller-manager here: the quota's usage is recorded by hand, as
	// its controller would
	quota.Status = corev1.ResourceQuotaStatus{Hard: quota.Spec.Hard, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}}
	if err := c.Status().Update(ctx, quota); err != nil {
		t.Fatal(err)
	}
	if err := createPod(); err != nil {
		t.Errorf("with the documented ResourceQuota: %v", err)
	}
}
