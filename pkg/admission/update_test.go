package admission

import (
	"context"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// labelsPatched lists the labels a response's JSONPatch adds, sorted by
// path.
func labelsPatched(t *testing.T, resp admission.Response) string {
	t.Helper()
	if !resp.Allowed || len(resp.Warnings) > 0 {
		t.Fatalf("response %+v", resp)
	}
	var out []string
	for _, op := range patchOf(t, resp) {
		if op.Path == "/metadata/labels" {
			for k := range op.Value.(map[string]any) {
				out = append(out, k)
			}
		} else {
			out = append(out, strings.TrimPrefix(op.Path, "/metadata/labels/"))
		}
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// TestHandlerOperations: on a CREATE the files whose operations hold
// CREATE apply, on an UPDATE those that hold UPDATE, computed against the
// new object as on a CREATE; a file says nothing: both.
func TestHandlerOperations(t *testing.T) {
	h := newHandler(t, map[string]string{
		"both.kpatch":   "[deployment.web]\nlabels.both: \"yes\"\n",
		"create.kpatch": "# kpatch:operations: CREATE\n[deployment.web]\nlabels.create: \"yes\"\n",
		"update.yaml":   "- metadata: {operations: [UPDATE]}\n- target: deployment.web\n  patch: {labels.update: \"yes\"}\n",
	})
	h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	if got := labelsPatched(t, h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))); got != "both create" {
		t.Errorf("CREATE: labels %q, want both create", got)
	}
	if got := labelsPatched(t, h.Handle(context.Background(), request(admissionv1.Update, "shop", deploymentJSON))); got != "both update" {
		t.Errorf("UPDATE: labels %q, want both update", got)
	}
	// the webhook's --operations bound them all
	h.Operations = []admissionv1.Operation{admissionv1.Create}
	if got := labelsPatched(t, h.Handle(context.Background(), request(admissionv1.Update, "shop", deploymentJSON))); got != "" {
		t.Errorf("UPDATE without --operations UPDATE: labels %q", got)
	}
}

// TestHandlerUpdateWithoutFilesNotDecoded: an UPDATE that only files of
// other operations target is admitted before its object is decoded (an
// object the decoder refuses is no internal error).
func TestHandlerUpdateWithoutFilesNotDecoded(t *testing.T) {
	h := newHandler(t, map[string]string{"create.kpatch": "# kpatch:operations: CREATE\n[deployment.web]\nlabels.create: \"yes\"\n"})
	h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	h.OnError = ErrorPolicyDeny
	req := request(admissionv1.Update, "shop", deploymentJSON)
	req.Kind.Kind = "Deployment"
	req.Name = "web"
	req.Object = runtime.RawExtension{Raw: []byte(`{"kind":"Deployment","metadata":`)}
	if resp := h.Handle(context.Background(), req); !resp.Allowed || len(resp.Patch) != 0 || len(resp.Warnings) != 0 {
		t.Errorf("UPDATE: %+v", resp)
	}
	if resp := h.Handle(context.Background(), withOperation(req, admissionv1.Create)); resp.Allowed {
		t.Errorf("CREATE of the same object: %+v, want the decoder's error denied", resp)
	}
}

func withOperation(req admission.Request, op admissionv1.Operation) admission.Request {
	req.Operation = op
	return req
}

// TestHandlerUpdateOfTerminatingObject: an UPDATE of an object being
// deleted (deletionTimestamp on the object, or on the stored object only)
// passes unpatched, so that removing finalizers is never held up.
func TestHandlerUpdateOfTerminatingObject(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nlabels.team: shop\nmetadata.finalizers[-]: kpatch.dev/example\n"})
	h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	const deleting = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","deletionTimestamp":"2024-01-01T00:00:00Z","finalizers":[]}}`
	const plain = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","finalizers":[]}}`
	onObject := request(admissionv1.Update, "shop", deleting)
	onOld := request(admissionv1.Update, "shop", plain)
	onOld.OldObject = runtime.RawExtension{Raw: []byte(deleting)}
	mentioned := request(admissionv1.Update, "shop", plain)
	mentioned.OldObject = runtime.RawExtension{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","annotations":{"note":"deletionTimestamp"}}}`)}
	for name, tc := range map[string]struct {
		req     admission.Request
		patched bool
	}{
		"on the object":                {onObject, false},
		"on the stored object":         {onOld, false},
		"named in a value only":        {mentioned, true},
		"not being deleted":            {request(admissionv1.Update, "shop", plain), true},
		"a CREATE (never terminating)": {request(admissionv1.Create, "shop", plain), true},
	} {
		resp := h.Handle(context.Background(), tc.req)
		if !resp.Allowed || (len(patchOf(t, resp)) > 0) != tc.patched {
			t.Errorf("%s: %+v, want patched %v", name, resp, tc.patched)
		}
	}
}
