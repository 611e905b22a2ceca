package pathtoken

import (
	"crypto/subtle"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"kpatch.dev/kpatch/pkg/metrics"
)

// Guard returns next behind the token for the paths bases. A request
// whose path is a base, "/", the token is served by next as a request of
// that base: its path and RequestURI without the token, so that the
// handlers' metrics and logs never show it. Any other request to a base,
// or under it (its path cleaned: "//mutate" and "/x/../mutate" are
// "/mutate", where the mux would redirect them), is answered before its
// body is read: 403 when its path
// carries no token or another one, 503 before the replica read its token;
// it is counted in kpatch_admission_requests_rejected_total and logged (a
// line a second at most, with the count of the others), and asks for a
// sync (the configuration may have been set back, or the token replaced).
// A request to "/" is refused as one without a token: the API server
// calls it when a configuration's path was removed. Requests to other
// paths are served by next as they are.
func (k *Keeper) Guard(next http.Handler, bases ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := path.Clean("/" + r.URL.Path)
		base, rest, guarded := under(p, bases)
		if p == "/" {
			base, rest, guarded = p, "", true
		}
		if !guarded {
			next.ServeHTTP(w, r)
			return
		}
		token := k.Token()
		switch {
		case token == "":
			k.refuse(w, r, base, metrics.RejectPathTokenUnknown, http.StatusServiceUnavailable,
				"kpatch: the webhook has not read its path token yet; retry later")
			return
		case rest == "":
			k.refuse(w, r, base, metrics.RejectPathTokenMissing, http.StatusForbidden,
				"kpatch: this path carries no path token: the webhook answers only the path its webhook configuration holds")
			return
		case subtle.ConstantTimeCompare([]byte(rest), []byte(token)) != 1:
			k.refuse(w, r, base, metrics.RejectPathTokenWrong, http.StatusForbidden,
				"kpatch: this path carries another token than the webhook's: it answers only the path its webhook configuration holds")
			return
		}
		next.ServeHTTP(w, withPath(r, base))
	})
}

// under returns the base of bases that path is, or is under, and what
// follows it and its "/".
func under(path string, bases []string) (base, rest string, ok bool) {
	for _, b := range bases {
		if path == b {
			return b, "", true
		}
		if r, found := strings.CutPrefix(path, b+"/"); found {
			return b, r, true
		}
	}
	return "", "", false
}

// withPath is r as a request of path, with its query.
func withPath(r *http.Request, path string) *http.Request {
	out := new(http.Request)
	*out = *r
	u := *r.URL
	u.Path, u.RawPath = path, ""
	out.URL = &u
	out.RequestURI = u.RequestURI()
	return out
}

// refuse answers a request refused for reason, counts and logs it, and
// asks for a sync.
func (k *Keeper) refuse(w http.ResponseWriter, r *http.Request, base, reason string, code int, message string) {
	k.o.Metrics.Rejected(reason)
	if n, ok := k.refused.take(time.Now()); ok {
		k.o.Log.Info("refused a review whose path does not carry the path token, before reading it: a forged review, or a webhook configuration whose path was set back (it is written again within a second)",
			"path", base, "reason", reason, "remoteAddr", r.RemoteAddr, "refusedSinceLastLine", n)
	}
	if reason != metrics.RejectPathTokenUnknown {
		k.askSync()
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(message + "\n"))
}

// refusalLog lets one line a second through, counting the refusals it
// held back.
type refusalLog struct {
	mu       sync.Mutex
	next     time.Time
	withheld int
}

// take reports whether a line may be logged at now, and how many
// refusals were not logged before it.
func (l *refusalLog) take(now time.Time) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Before(l.next) {
		l.withheld++
		return 0, false
	}
	n := l.withheld
	l.withheld, l.next = 0, now.Add(time.Second)
	return n, true
}
