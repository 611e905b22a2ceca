package admission

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestWithRequestTimeout(t *testing.T) {
	for query, want := range map[string]time.Duration{
		"?timeout=10s": 9 * time.Second, // a tenth kept for the way back
		"?timeout=3s":  2700 * time.Millisecond,
		"":             0,
		"?timeout=x":   0,
		"?timeout=-1s": 0,
	} {
		var deadline time.Time
		var has bool
		before := time.Now()
		h := WithRequestTimeout(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			deadline, has = r.Context().Deadline()
		}))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mutate"+query, nil))
		switch {
		case want == 0 && has:
			t.Errorf("%q: a deadline", query)
		case want != 0 && !has:
			t.Errorf("%q: no deadline", query)
		case want != 0 && (deadline.Before(before.Add(want)) || deadline.After(time.Now().Add(want))):
			t.Errorf("%q: deadline %s after the request, want %s", query, deadline.Sub(before), want)
		}
	}
}
