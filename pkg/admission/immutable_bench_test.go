package admission

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// BenchmarkHandlePatchedUpdate is BenchmarkHandlePatched as an UPDATE
// whose stored object is the object itself: the files' changes are
// checked against the old object's immutable fields (a Deployment's
// selector), and each file works on its own copy.
func BenchmarkHandlePatchedUpdate(b *testing.B) {
	h, _, raw := benchHandlerWith(b, nil)
	h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	req := request(admissionv1.Update, "shop", string(raw))
	req.Name = "web"
	req.OldObject = runtime.RawExtension{Raw: raw}
	b.ReportAllocs()
	for b.Loop() {
		if resp := h.Handle(context.Background(), req); len(resp.Patch) == 0 || !resp.Allowed || len(resp.Warnings) > 0 {
			b.Fatalf("response %+v", resp)
		}
	}
}
