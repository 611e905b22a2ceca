package admission

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"kpatch.dev/kpatch/pkg/metrics"
)

// bodyWatch is a request body that records whether it was read.
type bodyWatch struct {
	mu   sync.Mutex
	read bool
}

func (b *bodyWatch) Read([]byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.read = true
	return 0, io.EOF
}

func (b *bodyWatch) Close() error { return nil }

func (b *bodyWatch) wasRead() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.read
}

// TestInFlightLimit: with two requests being served, a third is answered
// 429 with Retry-After, without its body being read, and counted; once one
// of the two is answered, the next request is served.
func TestInFlightLimit(t *testing.T) {
	m := metrics.NewMetrics(prometheus.NewRegistry())
	entered, release := make(chan struct{}), make(chan struct{})
	served := 0
	var mu sync.Mutex
	h := WithInFlightLimit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served++
		mu.Unlock()
		if r.URL.Query().Get("hold") != "" {
			entered <- struct{}{}
			<-release
		}
		_, _ = io.Copy(io.Discard, r.Body)
	}), 2, m)
	serve := func(target string, body io.ReadCloser) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, target, nil)
		r.Body = body
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	answered := make(chan struct{})
	for range 2 {
		go func() {
			if w := serve("/mutate?hold=1", http.NoBody); w.Code != http.StatusOK {
				t.Errorf("a held request: %d", w.Code)
			}
			answered <- struct{}{}
		}()
		<-entered
	}
	body := &bodyWatch{}
	w := serve("/mutate", body)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" || !strings.Contains(w.Body.String(), "2 requests are being served") {
		t.Errorf("the third request: %d %v %q", w.Code, w.Header(), w.Body.String())
	}
	if body.wasRead() {
		t.Error("the refused request's body was read")
	}
	if n := testutil.ToFloat64(m.RejectedRequests.WithLabelValues(metrics.RejectInFlight)); n != 1 {
		t.Errorf("rejected requests counted: %v, want 1", n)
	}
	release <- struct{}{}
	<-answered
	body = &bodyWatch{}
	if w := serve("/mutate", body); w.Code != http.StatusOK || !body.wasRead() {
		t.Errorf("a request after one was answered: %d, body read %v", w.Code, body.wasRead())
	}
	release <- struct{}{}
	<-answered
	mu.Lock()
	defer mu.Unlock()
	if served != 3 {
		t.Errorf("served %d requests, want 3", served)
	}
}

// TestInFlightNoLimit: with a limit of 0, any number of requests are
// served at once.
func TestInFlightNoLimit(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	h := WithInFlightLimit(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		entered <- struct{}{}
		<-release
	}), 0, nil)
	var held sync.WaitGroup
	for range 3 {
		held.Go(func() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/mutate", nil))
			if w.Code != http.StatusOK {
				t.Errorf("answer %d", w.Code)
				entered <- struct{}{} // refused: the handler did not say so
			}
		})
		<-entered
	}
	close(release)
	held.Wait()
}
