package admission

import (
	"fmt"
	"net/http"

	"kpatch.dev/kpatch/pkg/metrics"
)

// WithInFlightLimit lets at most limit requests be served by next at
// once. A request beyond them is answered at once, before its body is
// read, with 429 Too Many Requests and Retry-After: 1 (the API server's
// client retries such an answer within the call's timeout), and counted in
// kpatch_admission_requests_rejected_total{reason="in-flight"}. A limit of
// 0 or less is no limit.
//
// A request holds its place from its headers to its answer, the reading
// of its body included: the server's read timeout bounds how long a
// client that sends its body slowly keeps one.
func WithInFlightLimit(next http.Handler, limit int, m *metrics.Metrics) http.Handler {
	if limit <= 0 {
		return next
	}
	places := make(chan struct{}, limit)
	refusal := fmt.Sprintf("kpatch: %d requests are being served already; retry later", limit)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case places <- struct{}{}:
		default:
			m.Rejected(metrics.RejectInFlight)
			w.Header().Set("Retry-After", "1")
			http.Error(w, refusal, http.StatusTooManyRequests)
			return
		}
		defer func() { <-places }()
		next.ServeHTTP(w, r)
	})
}
