package metrics

import "github.com/prometheus/client_golang/prometheus"

// Reasons of a request answered before its review was read, the values of
// the reason label of kpatch_admission_requests_rejected_total.
const (
	// RejectInFlight: as many requests as the bound were being served
	// (answered 429, WithInFlightLimit).
	RejectInFlight = "in-flight"
	// RejectNotSynced: the registry has not synced yet (answered 503,
	// WithRegistrySynced; the webhook configuration's failurePolicy
	// decides).
	RejectNotSynced = "not-synced"
	// RejectPathTokenMissing: a request to /mutate or /validate-registry
	// whose path carries no path token (answered 403): a forged review, or
	// a webhook configuration whose path was set back without it.
	RejectPathTokenMissing = "path-token-missing"
	// RejectPathTokenWrong: a request whose path carries another token
	// than the webhook's (answered 403): a forged review, or a token
	// replaced since the API server read the configuration.
	RejectPathTokenWrong = "path-token-wrong"
	// RejectPathTokenUnknown: a request before the replica read its path
	// token (answered 503); the replica is not ready until it has.
	RejectPathTokenUnknown = "path-token-unknown"
)

// newRejectedMetric creates the counter of rejected requests, every
// reason at zero.
func (m *Metrics) newRejectedMetric() {
	m.RejectedRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kpatch_admission_requests_rejected_total",
		Help: "Requests to /mutate and /validate-registry answered before their review was read, by reason: in-flight (429: as many as the bound were being served), not-synced (503: the registry has not synced yet; the webhook configuration's failurePolicy decides), path-token-missing and path-token-wrong (403: the path does not carry the webhook's path token), path-token-unknown (503: the replica has not read its path token yet).",
	}, []string{"reason"})
	for _, r := range []string{RejectInFlight, RejectNotSynced, RejectPathTokenMissing, RejectPathTokenWrong, RejectPathTokenUnknown} {
		m.RejectedRequests.WithLabelValues(r)
	}
}

// Rejected counts a request refused before its review was read, by its
// reason (RejectInFlight, RejectNotSynced, ...).
func (m *Metrics) Rejected(reason string) {
	if m != nil {
		m.RejectedRequests.WithLabelValues(reason).Inc()
	}
}
