package admission

import (
	"context"
	"net/http"
	"time"
)

// timeoutMargin is the part of the API server's timeout kept for the
// answer's way back: the handler stops at 90% of it.
const timeoutMargin = 10

// WithRequestTimeout gives each request's context the deadline the API
// server sets on its call (the timeout query parameter, the webhook
// configuration's timeoutSeconds), less a tenth for the answer's way back,
// so that the Handler stops and answers by its ErrorPolicy before the API
// server gives up on the call.
func WithRequestTimeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := handlerTimeout(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// handlerTimeout is how long the Handler may take on r: the API server's
// timeout less timeoutMargin, if r has a valid one.
func handlerTimeout(r *http.Request) (time.Duration, bool) {
	d, err := time.ParseDuration(r.URL.Query().Get("timeout"))
	if err != nil || d <= 0 {
		return 0, false
	}
	return d - d/timeoutMargin, true
}
