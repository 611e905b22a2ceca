package metrics

import "github.com/prometheus/client_golang/prometheus"

// Reasons of the Events on patched objects that were not recorded, the
// values of the reason label of kpatch_patch_events_dropped_total.
const (
	// EventRateLimited is an Event past --events-on-patch-rate.
	EventRateLimited = "rate-limited"
	// EventUnnamed is an Event about an object that has no name yet
	// (generateName) and no controller to record it on.
	EventUnnamed = "unnamed"
)

// registerPatchEvents creates and registers the counter of the Events on
// patched objects that were not recorded, every reason at zero.
func (m *Metrics) registerPatchEvents(reg prometheus.Registerer) {
	m.PatchEventsDropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kpatch_patch_events_dropped_total",
		Help: "Events on patched objects (--events-on-patch) not recorded, by reason: rate-limited (past --events-on-patch-rate), unnamed (an object without a name yet and without a controller).",
	}, []string{"reason"})
	for _, r := range []string{EventRateLimited, EventUnnamed} {
		m.PatchEventsDropped.WithLabelValues(r)
	}
	reg.MustRegister(m.PatchEventsDropped)
}

// PatchEventDropped counts an Event on a patched object not recorded, by
// its reason (EventRateLimited, EventUnnamed).
func (m *Metrics) PatchEventDropped(reason string) {
	if m != nil {
		m.PatchEventsDropped.WithLabelValues(reason).Inc()
	}
}
