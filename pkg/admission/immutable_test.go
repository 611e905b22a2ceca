package admission

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

const (
	storedPodJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"shop"},
"spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}}`
	labelledPodJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"shop","labels":{"by":"user"}},
"spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}}`
	prioritizedPodJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"shop"},
"spec":{"priorityClassName":"high","containers":[{"name":"app","image":"nginx:1.25"}]}}`
)

// TestHandlerImmutableOnUpdate: on an UPDATE, a file that would change a
// field an UPDATE of the kind may not change (a Pod's priorityClassName)
// is left out whole, its label too, without a warning and without a
// denial under --strict, and counted result="immutable"; the other files
// apply. Where the stored object has the file's value, the file applies
// (an UPDATE that dropped the field gets it back).
func TestHandlerImmutableOnUpdate(t *testing.T) {
	h := newHandler(t, map[string]string{
		"spec.kpatch":  "[pod.web]\nspec.priorityClassName: high\nlabels.spec: \"yes\"\n",
		"label.kpatch": "[pod.web]\nlabels.label: \"yes\"\n",
	})
	h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	h.Strict = true
	update := func(obj, old string) string {
		req := request(admissionv1.Update, "shop", obj)
		req.Name = "web"
		req.OldObject = runtime.RawExtension{Raw: []byte(old)}
		return labelsPatched(t, h.Handle(context.Background(), req))
	}
	if got := update(labelledPodJSON, storedPodJSON); got != "label" {
		t.Errorf("UPDATE of a Pod created without the file: labels %q, want label", got)
	}
	if n := testutil.ToFloat64(h.Metrics.FileApplications.WithLabelValues("reg/spec.kpatch", "immutable")); n != 1 {
		t.Errorf("immutable: %v, want 1", n)
	}
	if got := update(storedPodJSON, prioritizedPodJSON); got != "/spec/priorityClassName label spec" {
		t.Errorf("UPDATE that drops the file's value: patch %q, want the priority class and the labels label and spec", got)
	}
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", storedPodJSON))
	if got := labelsPatched(t, resp); got != "/spec/priorityClassName label spec" {
		t.Errorf("CREATE: patch %q, want the priority class and the labels label and spec", got)
	}
}
