package pathtoken

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"kpatch.dev/kpatch/pkg/metrics"
)

// countingBody records whether a handler read it.
type countingBody struct {
	io.Reader
	read bool
}

func (b *countingBody) Read(p []byte) (int, error) {
	b.read = true
	return b.Reader.Read(p)
}

func (b *countingBody) Close() error { return nil }

// TestGuardServesOnlyThePathWithTheToken: a review reaches the handler
// only at base/<token>, as a request of base (no token in its path or
// RequestURI, its query kept); at base, or with another token, it is
// refused 403 before its body is read, counted by reason, and so is one
// at "/" (a configuration without a path); other paths pass; before the
// token is read, 503.
func TestGuardServesOnlyThePathWithTheToken(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(configurations()...).Build()
	k := keeper(t, c)
	k.o.Metrics = metrics.NewMetrics(prometheus.NewRegistry())
	var served []string
	h := k.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		served = append(served, r.URL.Path+" "+r.RequestURI)
	}), "/mutate", "/validate-registry")
	post := func(path string) (int, bool) {
		t.Helper()
		body := &countingBody{Reader: strings.NewReader(`{"request":{"uid":"u"}}`)}
		r := httptest.NewRequest(http.MethodPost, path, nil)
		r.Body = body
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, body.read
	}
	if code, read := post("/mutate"); code != http.StatusServiceUnavailable || read {
		t.Errorf("before the token was read: %d, body read %v", code, read)
	}
	if err := k.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	token := k.Token()
	for _, path := range []string{"/", "/mutate", "/mutate/", "//mutate", "/x/../validate-registry", "/validate-registry", "/mutate/wrong-token", "/mutate/" + token + "/x", "/validate-registry/" + token[1:], "/validate-registry/" + token + "x"} {
		if code, read := post(path + "?timeout=10s"); code != http.StatusForbidden || read {
			t.Errorf("%s: %d, body read %v; want 403, unread", path, code, read)
		}
	}
	if len(served) != 0 {
		t.Fatalf("served %q", served)
	}
	for _, path := range []string{"/mutate/" + token + "?timeout=10s", "/validate-registry/" + token, "/readyz"} {
		if code, read := post(path); code != http.StatusOK || !read {
			t.Errorf("%s: %d, body read %v; want served", path, code, read)
		}
	}
	want := []string{"/mutate /mutate?timeout=10s", "/validate-registry /validate-registry", "/readyz /readyz"}
	if strings.Join(served, ",") != strings.Join(want, ",") {
		t.Errorf("the handler saw %q, want %q", served, want)
	}
	for reason, want := range map[string]float64{metrics.RejectPathTokenUnknown: 1, metrics.RejectPathTokenMissing: 6, metrics.RejectPathTokenWrong: 4} {
		if got := testutil.ToFloat64(k.o.Metrics.RejectedRequests.WithLabelValues(reason)); got != want {
			t.Errorf("kpatch_admission_requests_rejected_total{reason=%q} = %v, want %v", reason, got, want)
		}
	}
}

// BenchmarkGuardRefusesAForgedReview measures the refusal of a forged
// review of a 1.8 MiB ConfigMap posted to /validate-registry without the
// token: answered before a byte of its body is read.
func BenchmarkGuardRefusesAForgedReview(b *testing.B) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).Build()
	k, err := New(Options{Namespace: testNamespace, SecretName: testSecret, Reader: c, Writer: c})
	if err != nil {
		b.Fatal(err)
	}
	if err := k.Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	h := k.Guard(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { b.Fatal("served") }), "/mutate", "/validate-registry")
	body := strings.Repeat("x", 1800<<10)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/validate-registry?timeout=5s", strings.NewReader(body)))
		if w.Code != http.StatusForbidden {
			b.Fatal(w.Code)
		}
	}
}
