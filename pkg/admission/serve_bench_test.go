package admission

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// benchmarkServe is one AdmissionReview of the benchmark Deployment
// through the whole server path, as the webhook process serves it: the
// HTTP handler (decode the review, handle, encode the answer), the
// request logger and the metrics; h is the patched or the empty registry.
func benchmarkServe(b *testing.B, patched bool) {
	h, empty, raw := benchHandler(b)
	if !patched {
		h = empty
	}
	h.Metrics = NewMetrics(prometheus.NewRegistry())
	h.Metrics.SetFiles(fileNames(h.Registry()))
	req := request(admissionv1.Create, "shop", string(raw))
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  &req.AdmissionRequest,
	})
	if err != nil {
		b.Fatal(err)
	}
	wh := WithRequestTimeout(&Webhook{Webhook: admission.Webhook{Handler: h, LogConstructor: LogConstructor}})
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/mutate?timeout=10s", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		wh.ServeHTTP(w, r)
		if w.Code != http.StatusOK || bytes.Contains(w.Body.Bytes(), []byte(`"patch"`)) != patched {
			b.Fatalf("answer %d: %.200s", w.Code, w.Body.Bytes())
		}
	}
}

// BenchmarkServePatched is the whole server path of a request that the
// 10-file registry patches; BenchmarkServeEmpty of one that an empty
// registry admits untouched: the difference is what patching costs the
// webhook process (the load tool measures the same over HTTPS).
func BenchmarkServePatched(b *testing.B) { benchmarkServe(b, true) }
func BenchmarkServeEmpty(b *testing.B)   { benchmarkServe(b, false) }

// fileNames are the names of the registry's files.
func fileNames(r *Registry) []string {
	var out []string
	for _, f := range r.Files() {
		out = append(out, f.Ref.String())
	}
	return out
}
