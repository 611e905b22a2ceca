package admission

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// TestRegistrySyncedAnswers503Before: before the registry has synced, a
// request is answered 503 with a Status saying why, without Retry-After,
// without its body being read or the next handler called, and counted;
// once it has synced, every request is served.
func TestRegistrySyncedAnswers503Before(t *testing.T) {
	m := metrics.NewMetrics(prometheus.NewRegistry())
	var current atomic.Pointer[registry.Registry]
	served := 0
	h := WithRegistrySynced(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }), current.Load, m)
	serve := func(body *bodyWatch) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/mutate", nil)
		r.Body = body
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	body := &bodyWatch{}
	w := serve(body)
	var status metav1.Status
	if err := json.Unmarshal(w.Body.Bytes(), &status); err != nil {
		t.Fatalf("the answer %q: %v", w.Body.String(), err)
	}
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Content-Type") != "application/json" || w.Header().Get("Retry-After") != "" {
		t.Errorf("before the sync: %d %v", w.Code, w.Header())
	}
	if status.Kind != "Status" || status.Code != http.StatusServiceUnavailable || status.Reason != metav1.StatusReasonServiceUnavailable ||
		status.Message != "kpatch: the registry has not synced yet" {
		t.Errorf("before the sync: %+v", status)
	}
	if body.wasRead() || served != 0 {
		t.Errorf("before the sync: body read %v, served %d", body.wasRead(), served)
	}
	if n := testutil.ToFloat64(m.RejectedRequests.WithLabelValues(metrics.RejectNotSynced)); n != 1 {
		t.Errorf("kpatch_admission_requests_rejected_total{reason=%q} = %v, want 1", metrics.RejectNotSynced, n)
	}

	current.Store(&registry.Registry{})
	if w := serve(&bodyWatch{}); w.Code != http.StatusOK || served != 1 {
		t.Errorf("after the sync: %d, served %d", w.Code, served)
	}
	if n := testutil.ToFloat64(m.RejectedRequests.WithLabelValues(metrics.RejectNotSynced)); n != 1 {
		t.Errorf("after the sync, kpatch_admission_requests_rejected_total{reason=%q} = %v, want 1", metrics.RejectNotSynced, n)
	}
}
