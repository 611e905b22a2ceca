package admission

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// benchmarkServe is one AdmissionReview of the benchmark Deployment
// through the whole server path, as the webhook process serves it: the
// HTTP handler (decode the review, handle, encode the answer), the
// request logger and the metrics; h is the patched or the empty registry.
func benchmarkServe(b *testing.B, patched bool) { benchmarkServeEvery(b, patched, 0) }

// benchmarkServeEvery is benchmarkServe with the process idle for gap
// before each request (not timed), as a webhook between the API server's
// calls.
func benchmarkServeEvery(b *testing.B, patched bool, gap time.Duration) {
	h, empty, raw := benchHandler(b)
	if !patched {
		h = empty
	}
	h.Metrics = metrics.NewMetrics(prometheus.NewRegistry())
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
		if gap > 0 {
			b.StopTimer()
			time.Sleep(gap)
			b.StartTimer()
		}
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

// BenchmarkServePatchedAfterIdle is BenchmarkServePatched with the
// process idle for 3 ms before each request, as the webhook is between
// the calls of an API server creating a few hundred objects a second: the
// CPU's caches and clock are no longer the benchmark loop's, and the same
// work takes several times longer. An e2e run's server-side mean is this
// figure, not BenchmarkServePatched's.
func BenchmarkServePatchedAfterIdle(b *testing.B) { benchmarkServeEvery(b, true, 3*time.Millisecond) }

// fileNames are the names of the registry's files.
func fileNames(r *registry.Registry) []string {
	var out []string
	for _, f := range r.Files() {
		out = append(out, f.Ref.String())
	}
	return out
}
