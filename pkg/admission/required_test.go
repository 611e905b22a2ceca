package admission

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// TestHandlerRequired: a field marked ${required} that neither a later
// file nor the object sets is a warning naming the field and the file
// (strict: a denial); once set, there is none, and the marker is never
// written.
func TestHandlerRequired(t *testing.T) {
	base := "[deployment.*]\nserviceAccountName: ${required}\nlabels.tier: base\nreplicas: ${required}\n"
	h := newHandler(t, map[string]string{"base.kpatch": base})
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if !resp.Allowed || len(patchOf(t, resp)) != 1 || strings.Contains(string(resp.Patch), "required") {
		t.Fatalf("want only the label: %+v", resp)
	}
	want := "kpatch: reg/base.kpatch:2: spec.template.spec.serviceAccountName is ${required}: a later layer or the object itself must set it, and nothing did"
	if len(resp.Warnings) != 1 || resp.Warnings[0] != want {
		t.Errorf("warnings %q\nwant %q", resp.Warnings, want)
	}
	h.Strict = true
	resp = h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if resp.Allowed || !strings.Contains(resp.Result.Message, "reg/base.kpatch:2: spec.template.spec.serviceAccountName is ${required}") {
		t.Errorf("strict mode: %+v", resp.Result)
	}
	h = newHandler(t, map[string]string{"base.kpatch": base, "web.kpatch": "[deployment.web]\nserviceAccountName: web\n"})
	h.Strict = true
	resp = h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if !resp.Allowed || len(resp.Warnings) != 0 || len(patchOf(t, resp)) != 2 {
		t.Errorf("set by the more specific file: %+v", resp)
	}
}
