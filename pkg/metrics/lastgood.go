package metrics

import "github.com/prometheus/client_golang/prometheus"

// newLastGoodRefusedMetric creates the counter of stored last good
// versions that the trust check refused.
func (m *Metrics) newLastGoodRefusedMetric() {
	m.LastGoodRefused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "kpatch_last_good_refused_total",
		Help: "Stored last good versions this replica refused to apply because the registry never held them (registry.ErrLastGoodRefused: another ConfigMap's uid, a resourceVersion not before the current one, no replica known to have compiled it), counted when the file's state changes.",
	})
}

// LastGoodVersionRefused counts a stored last good version refused by the
// trust check.
func (m *Metrics) LastGoodVersionRefused() {
	if m != nil {
		m.LastGoodRefused.Inc()
	}
}
