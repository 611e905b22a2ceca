package admission

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// longPod is a Pod with n containers.
func longPod(n int) string {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"c%d","image":"app:v1"}`, i)
	}
	b.WriteString(`]}}`)
	return b.String()
}

// TestBudgetRefusesAFileNotTheObject: a file whose work on an object
// passes the handler's budget is not applied, with a warning naming it and
// the budget; the other files apply.
func TestBudgetRefusesAFileNotTheObject(t *testing.T) {
	h := newHandler(t, map[string]string{
		"a-every-container.kpatch": "[pod.*.containers]\nimagePullPolicy: Always\n",
		"b-label.kpatch":           "[pod.*]\nlabels.b: applied\n",
	})
	h.Budget = kpatch.Budget{Items: 500}
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", longPod(1000)))
	ops := patchOf(t, resp)
	if !resp.Allowed || len(ops) != 1 || ops[0].Path != "/metadata/labels" {
		t.Fatalf("want b's label only: allowed %v, %d ops", resp.Allowed, len(ops))
	}
	if len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "reg/a-every-container.kpatch") || !strings.Contains(resp.Warnings[0], "budget") {
		t.Errorf("warnings %q", resp.Warnings)
	}
	// within the budget, the same file applies to every container
	h.Budget = kpatch.Budget{}
	resp = h.Handle(context.Background(), request(admissionv1.Create, "shop", longPod(1000)))
	if ops := patchOf(t, resp); len(ops) < 2 || len(resp.Warnings) != 0 {
		t.Errorf("default budget: %d ops, warnings %q", len(ops), resp.Warnings)
	}
}
