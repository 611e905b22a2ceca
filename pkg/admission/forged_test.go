package admission

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// forgedHandler has an admin file that copies the source ConfigMap
// settings' region into a label, and a tenant file of namespace b that
// sets a label; namespaces a and b each hold their own settings.
func forgedHandler(t *testing.T) *Handler {
	t.Helper()
	admin := "replacements:\n- source: {kind: ConfigMap, name: settings, fieldPath: data.region}\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [metadata.labels.region]\n    options: {create: true}\n"
	tenant := "replacements:\n- sourceValue: b-tenant-data\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [metadata.labels.tenant]\n    options: {create: true}\n"
	built := (&registry.Compiler{RegistryNamespace: "kpatch-system"}).Build([]corev1.ConfigMap{
		*registryConfigMap("admin", map[string]string{"a.yaml": admin}),
		*tenantConfigMap("b", "mine", map[string]string{"t.yaml": tenant}),
	}, nil)
	if len(built.Problems) != 0 {
		t.Fatalf("problems %v", built.Problems)
	}
	reg := built.Registry
	var s informed.SourceConfigMaps
	s.OnAdd(sourceCM("a", "a-region"), true)
	s.OnAdd(sourceCM("b", "b-secret-region"), true)
	return &Handler{Registry: func() *registry.Registry { return reg }, RegistryNamespace: "kpatch-system", Sources: &s, Metrics: metrics.NewMetrics(prometheus.NewRegistry())}
}

// deploymentIn is a Deployment web whose metadata.namespace is ns, none
// when ns is "".
func deploymentIn(ns string) string {
	namespace := ""
	if ns != "" {
		namespace = fmt.Sprintf(`,"namespace":%q`, ns)
	}
	return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"` + namespace + `}}`
}

// TestHonestReviewsReadTheirOwnNamespace is the control of
// TestForgedNamespaceIsRefused: the same handler patches the objects of a
// and b, each with its own namespace's data only.
func TestHonestReviewsReadTheirOwnNamespace(t *testing.T) {
	h := forgedHandler(t)
	for ns, want := range map[string]string{
		"a": "[{add /metadata/labels map[region:a-region]}]",
		"b": "[{add /metadata/labels map[region:b-secret-region tenant:b-tenant-data]}]",
	} {
		for _, objNS := range []string{ns, ""} {
			resp := h.Handle(context.Background(), request(admissionv1.Create, ns, deploymentIn(objNS)))
			if got := fmt.Sprint(patchOf(t, resp)); got != want || !resp.Allowed {
				t.Errorf("namespace %s, object's %q: %s, want %s", ns, objNS, got, want)
			}
		}
	}
}

// TestForgedNamespaceIsRefused: a review whose request claims a namespace
// other than the object's metadata.namespace (which the API server never
// sends) is answered by --on-error, never with the claimed namespace's
// source ConfigMaps or tenant files: admitted unpatched with a warning, or
// denied.
func TestForgedNamespaceIsRefused(t *testing.T) {
	for _, c := range []struct{ request, object string }{
		{"b", "a"},             // reads b's data through an object of a
		{"a", "b"},             // the other way round
		{"", "a"},              // a cluster-scoped claim
		{"kpatch-system", "a"}, // a namespace never patched
	} {
		for _, policy := range []ErrorPolicy{ErrorPolicyAllow, ErrorPolicyDeny} {
			h := forgedHandler(t)
			h.OnError = policy
			resp := h.Handle(context.Background(), request(admissionv1.Create, c.request, deploymentIn(c.object)))
			name := fmt.Sprintf("request %q, object %q, %s", c.request, c.object, policy)
			if len(resp.Patch) != 0 || len(resp.Patches) != 0 {
				t.Errorf("%s: patched %s", name, resp.Patch)
			}
			if strings.Contains(fmt.Sprint(resp), "region") || strings.Contains(fmt.Sprint(resp), "tenant-data") {
				t.Errorf("%s: the answer holds namespace data: %+v", name, resp)
			}
			if c.request == "kpatch-system" {
				// never patched whatever the object: answered before the check
				if !resp.Allowed || len(resp.Warnings) != 0 {
					t.Errorf("%s: %+v", name, resp)
				}
				continue
			}
			want := fmt.Sprintf("metadata.namespace %q of the object is not the request's namespace %q", c.object, c.request)
			switch policy {
			case ErrorPolicyAllow:
				if !resp.Allowed || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], want) {
					t.Errorf("%s: %+v", name, resp)
				}
			case ErrorPolicyDeny:
				if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusBadRequest || !strings.Contains(resp.Result.Message, want) {
					t.Errorf("%s: %+v", name, resp)
				}
			}
			if n := testutil.ToFloat64(h.Metrics.InternalErrors.WithLabelValues(metrics.ReasonNamespaceMismatch)); n != 1 {
				t.Errorf("%s: %v namespace mismatches counted", name, n)
			}
		}
	}
}
