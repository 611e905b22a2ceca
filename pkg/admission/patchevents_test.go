package admission

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// patchRecorder is an events.EventRecorder that keeps what it is given.
type patchRecorder struct{ events []string }

func (r *patchRecorder) Eventf(regarding, _ runtime.Object, eventtype, reason, action, note string, args ...any) {
	ref := regarding.(*corev1.ObjectReference)
	r.events = append(r.events, fmt.Sprintf("%s %s/%s/%s %s %s %s: %s", eventtype, ref.Kind, ref.Namespace, ref.Name, ref.UID, reason, action, fmt.Sprintf(note, args...)))
}

// TestPatchEvents: an Event per patched object, on the object, naming the
// files that changed it; on its controller for an object without a name
// yet; none for an object no file changed, nor for a dry run; past the
// rate, none, counted.
func TestPatchEvents(t *testing.T) {
	h := newHandler(t, map[string]string{"a.kpatch": "[pod.*]\nlabels.patched: \"yes\"\n", "b.kpatch": "[pod.*]\nlabels.team: a\n"})
	rec := &patchRecorder{}
	h.Events = NewPatchEvents(rec, 1000, h.Metrics)
	version := registry.Version("[pod.*]\nlabels.patched: \"yes\"\n")
	pod := func(meta string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{` + meta + `},"spec":{"containers":[{"name":"app","image":"x"}]}}`
	}
	send := func(name, meta string, dryRun bool) {
		req := request(admissionv1.Create, "shop", pod(meta))
		req.Name, req.Kind.Version = name, "v1"
		req.DryRun = &dryRun
		if resp := h.Handle(context.Background(), req); !resp.Allowed {
			t.Fatalf("response %+v", resp.AdmissionResponse)
		}
	}
	send("web", `"name":"web","namespace":"shop"`, false)
	send("", `"generateName":"web-7d9f-","namespace":"shop","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f","uid":"u1","controller":true}]`, false)
	send("", `"generateName":"lone-","namespace":"shop"`, false)
	send("web", `"name":"web","namespace":"shop","labels":{"patched":"yes","team":"a"}`, false) // unchanged
	send("dry", `"name":"dry","namespace":"shop"`, true)
	want := []string{
		"Normal Pod/shop/web  Patched Patch: patched by reg/a.kpatch@" + version + ", reg/b.kpatch@" + registry.Version("[pod.*]\nlabels.team: a\n"),
		"Normal ReplicaSet/shop/web-7d9f u1 Patched Patch: Pod web-7d9f-*: patched by reg/a.kpatch@" + version + ", reg/b.kpatch@" + registry.Version("[pod.*]\nlabels.team: a\n"),
	}
	if strings.Join(rec.events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(rec.events, "\n"), strings.Join(want, "\n"))
	}
	if n := testutil.ToFloat64(h.Metrics.PatchEventsDropped.WithLabelValues(metrics.EventUnnamed)); n != 1 {
		t.Errorf("unnamed dropped %v, want 1", n)
	}

	// past the rate: one at once, then none for a long time
	h.Events = NewPatchEvents(rec, 0.001, h.Metrics)
	rec.events = nil
	for range 3 {
		send("web", `"name":"web","namespace":"shop"`, false)
	}
	if len(rec.events) != 1 {
		t.Errorf("%d events past the rate, want 1", len(rec.events))
	}
	if n := testutil.ToFloat64(h.Metrics.PatchEventsDropped.WithLabelValues(metrics.EventRateLimited)); n != 2 {
		t.Errorf("rate-limited dropped %v, want 2", n)
	}
}
