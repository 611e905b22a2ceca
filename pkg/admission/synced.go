package admission

import (
	"encoding/json"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/pkg/admit"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// WithRegistrySynced answers every request with 503 Service Unavailable,
// before its body is read, until current returns a registry (the first
// sync; it never returns nil again), and counts it in
// kpatch_admission_requests_rejected_total{reason="not-synced"}; from
// then on next serves every request.
//
// A replica that has not synced has no registry to answer with: admitting
// the object unpatched, or denying it, would be its own decision on an
// object that the registry in force may patch. A 503 is a call that
// failed: the API server applies the webhook configuration's
// failurePolicy, as for a replica that does not listen. Readiness
// (/readyz) fails until the same sync, so a Service sends no request
// here meanwhile; this covers the calls that reach the replica anyway (a
// url: webhook, endpoints that lag, a caller that is not the API server).
// The answer has no Retry-After: the API server's client would retry on
// the same connection, to the same replica, within the call's timeout,
// and apply failurePolicy only when that ran out.
//
// The body is a Status (kind Status, reason ServiceUnavailable, code
// 503) whose message the API server quotes in its log and, under
// failurePolicy Fail, in the error it returns.
func WithRegistrySynced(next http.Handler, current func() *registry.Registry, m *metrics.Metrics) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if current() != nil {
			next.ServeHTTP(w, r)
			return
		}
		m.Rejected(metrics.RejectNotSynced)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write(notSyncedStatus)
	})
}

// notSyncedStatus is the body of WithRegistrySynced's answer.
var notSyncedStatus = func() []byte {
	b, err := json.Marshal(metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure, Message: prefix + admit.ErrNotSynced.Error(),
		Reason: metav1.StatusReasonServiceUnavailable, Code: http.StatusServiceUnavailable,
	})
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}()
