package admission

import (
	"math"
	"strings"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// ReasonPatched is the reason of the Event on an object files changed
// (Normal), with PatchEvents.
const ReasonPatched = "Patched"

// PatchEvents records an Event per object files changed, on the object
// (or, for an object that has no name yet, on its controller), naming the
// files as the audit annotation does, within a rate: the Events past it
// are counted (kpatch_patch_events_dropped_total), never queued. Every
// replica records them: each is about a request it answered. A dry-run
// request records none.
type PatchEvents struct {
	Recorder events.EventRecorder
	Limiter  *rate.Limiter
	Metrics  *metrics.Metrics
}

// NewPatchEvents records Events with recorder, perSecond on average and
// as many at once as one second allows (at least one).
func NewPatchEvents(recorder events.EventRecorder, perSecond float64, m *metrics.Metrics) *PatchEvents {
	burst := max(1, int(math.Ceil(perSecond)))
	return &PatchEvents{Recorder: recorder, Limiter: rate.NewLimiter(rate.Limit(perSecond), burst), Metrics: m}
}

// patched records the Event of a request whose object the files of run
// changed; nothing on a nil *PatchEvents.
func (e *PatchEvents) patched(req *admission.Request, run *apply.ObjectRun, reg *registry.Registry) {
	if e == nil || req.DryRun != nil && *req.DryRun {
		return
	}
	regarding, what := eventRegarding(req, run.In)
	if regarding == nil {
		e.Metrics.PatchEventDropped(metrics.EventUnnamed)
		return
	}
	if !e.Limiter.Allow() {
		e.Metrics.PatchEventDropped(metrics.EventRateLimited)
		return
	}
	e.Recorder.Eventf(regarding, nil, corev1.EventTypeNormal, ReasonPatched, "Patch", "%s",
		truncateNote(what+"patched by "+fileList(reg, run.Files, apply.Patched)))
}

// eventRegarding is what the Event of a request is about: the object; or,
// for an object that has no name yet (generateName), its controller, the
// note then saying which object ("Pod web-7d9f-*: "); nil when it has
// neither.
func eventRegarding(req *admission.Request, obj map[string]any) (*corev1.ObjectReference, string) {
	gv := req.Kind.Version
	if req.Kind.Group != "" {
		gv = req.Kind.Group + "/" + gv
	}
	if req.Name != "" {
		return &corev1.ObjectReference{APIVersion: gv, Kind: req.Kind.Kind, Namespace: req.Namespace, Name: req.Name}, ""
	}
	meta, _ := obj["metadata"].(map[string]any)
	owners, _ := meta["ownerReferences"].([]any)
	for _, o := range owners {
		owner, _ := o.(map[string]any)
		if controller, _ := owner["controller"].(bool); !controller {
			continue
		}
		apiVersion, _ := owner["apiVersion"].(string)
		kind, _ := owner["kind"].(string)
		name, _ := owner["name"].(string)
		uid, _ := owner["uid"].(string)
		if kind == "" || name == "" {
			return nil, ""
		}
		generateName, _ := meta["generateName"].(string)
		// the object's maps return to their pool after the request: the
		// Event, recorded later, keeps copies
		ref := &corev1.ObjectReference{APIVersion: strings.Clone(apiVersion), Kind: strings.Clone(kind),
			Namespace: req.Namespace, Name: strings.Clone(name), UID: types.UID(strings.Clone(uid))}
		return ref, req.Kind.Kind + " " + generateName + "*: "
	}
	return nil, ""
}
