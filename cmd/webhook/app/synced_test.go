package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// TestUnsyncedReplicaAnswers503: until the registry has synced, /mutate
// and /validate-registry, as Run builds them, answer a review with HTTP
// 503 (a call that failed: the webhook configuration's failurePolicy
// decides), under either --on-error, never with an admission of their
// own; each is counted as not-synced. Once synced, /mutate patches and
// /validate-registry checks.
func TestUnsyncedReplicaAnswers503(t *testing.T) {
	for _, onError := range []string{"allow", "deny"} {
		t.Run(onError, func(t *testing.T) {
			o := parse(t, "--on-error="+onError)
			s, err := o.parse()
			if err != nil {
				t.Fatal(err)
			}
			m := metrics.NewMetrics(prometheus.NewRegistry())
			var current atomic.Pointer[registry.Registry]
			mutate := o.mutateHandler(&admission.Handler{Registry: current.Load, RegistryNamespace: s.namespace,
				Operations: s.operations, OnError: s.onError, Metrics: m, Budget: s.budget})
			watcher := registryWatcher(s, m)
			validate := o.validateHandler(admission.NewRegistryValidator(watcher), m)
			post := func(h http.Handler, path string, body []byte) *httptest.ResponseRecorder {
				r := httptest.NewRequest(http.MethodPost, path+"?timeout=10s", bytes.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w
			}
			answer := func(w *httptest.ResponseRecorder) *admissionv1.AdmissionResponse {
				var review admissionv1.AdmissionReview
				if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &review) != nil {
					return nil
				}
				return review.Response
			}

			for path, h := range map[string]http.Handler{"/mutate": mutate, admission.ValidatePath: validate} {
				body := reviewBody(t, "unsynced")
				if path == admission.ValidatePath {
					body = validateBody(t, "[deployment.web]\nreplicas: 3\n")
				}
				w := post(h, path, body)
				if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "the registry has not synced yet") {
					t.Errorf("%s before the sync: %d %+v %.300s", path, w.Code, answer(w), w.Body.String())
				}
			}
			if n := testutil.ToFloat64(m.RejectedRequests.WithLabelValues(metrics.RejectNotSynced)); n != 2 {
				t.Errorf("kpatch_admission_requests_rejected_total{reason=%q} = %v, want 2", metrics.RejectNotSynced, n)
			}
			if n := testutil.ToFloat64(m.InternalErrors.WithLabelValues(metrics.ReasonNotSynced)); n != 0 {
				t.Errorf("answered by --on-error: kpatch_internal_errors_total{reason=%q} = %v", metrics.ReasonNotSynced, n)
			}

			if err := watcher.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			current.Store(watcher.Current())
			if resp := answer(post(mutate, "/mutate", reviewBody(t, "synced"))); resp == nil || !resp.Allowed || !strings.Contains(string(resp.Patch), `"/spec/replicas"`) {
				t.Errorf("/mutate after the sync: %+v", resp)
			}
			if resp := answer(post(validate, admission.ValidatePath, validateBody(t, "[deployment.web]\nreplcas: 3\n"))); resp == nil || resp.Allowed {
				t.Errorf("%s after the sync, a broken file: %+v", admission.ValidatePath, resp)
			}
		})
	}
}
