package admission

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestHandlerTimeout(t *testing.T) {
	for query, want := range map[string]time.Duration{
		"?timeout=10s": 9 * time.Second, // a tenth kept for the way back
		"?timeout=3s":  2700 * time.Millisecond,
		"":             0,
		"?timeout=x":   0,
		"?timeout=-1s": 0,
		"?timeout=0s":  0,
	} {
		got, ok := handlerTimeout(httptest.NewRequest(http.MethodPost, "/mutate"+query, nil))
		if got != want || ok != (want != 0) {
			t.Errorf("%q: %s %v, want %s", query, got, ok, want)
		}
	}
}

// TestWithRequestTimeout checks that the handler's context gets a
// deadline exactly when the request has a timeout, and that it is the
// earlier of its own and the request's: no clock is read.
func TestWithRequestTimeout(t *testing.T) {
	for query, want := range map[string]bool{"?timeout=10s": true, "": false, "?timeout=x": false} {
		var has bool
		var deadline time.Time
		h := WithRequestTimeout(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			deadline, has = r.Context().Deadline()
		}))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mutate"+query, nil))
		if has != want {
			t.Errorf("%q: deadline %v, want one: %v", query, has, want)
		}
		// a parent deadline earlier than the timeout's stays in force
		ctx, cancel := context.WithDeadline(context.Background(), time.Unix(1, 0))
		r := httptest.NewRequest(http.MethodPost, "/mutate"+query, nil).WithContext(ctx)
		h.ServeHTTP(httptest.NewRecorder(), r)
		cancel()
		if want, _ := ctx.Deadline(); !has || !deadline.Equal(want) {
			t.Errorf("%q: deadline %v, want the parent's %v", query, deadline, want)
		}
	}
}
