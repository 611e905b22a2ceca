package main

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// Edits is the history of the registry's versions: version v was written
// by an update that began at begin[v] and returned at end[v], and the API
// server stored the versions in the order of their resourceVersions (two
// edits that race are stored in either order). Version 0 is the one the
// registry held when the webhooks started. It is safe for concurrent use.
//
// It decides which versions an answer may carry (the edit race): the
// webhook sees an edit some time after it is written, so an answer may
// carry an older version than the newest, but never one written after
// the answer came back, and never one stored before the version in force
// maxStale before the request was sent. Within an exempt interval (the
// webhook cut from the API server, until it caught up) the version in
// force maxStale before the interval began is the oldest allowed: the
// webhook answers from the registry it holds.
type Edits struct {
	mu         sync.Mutex
	begin, end []time.Time
	rv         []string // the resourceVersion each update returned
	order      []int    // the versions written, in the order they were stored
	exempt     []interval
}

type interval struct{ from, to time.Time }

// NewEdits returns a history whose version 0 was written at t.
func NewEdits(t time.Time) *Edits {
	return &Edits{begin: []time.Time{t}, end: []time.Time{t}, rv: []string{""}, order: []int{0}}
}

// Begin records that the update writing the next version begins at t,
// and returns that version.
func (e *Edits) Begin(t time.Time) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.begin = append(e.begin, t)
	e.end = append(e.end, time.Time{})
	e.rv = append(e.rv, "")
	return len(e.begin) - 1
}

// End records that the update of version v returned at t, written at
// resourceVersion rv.
func (e *Edits) End(v int, t time.Time, rv string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.end[v], e.rv[v] = t, rv
	i := len(e.order)
	for i > 0 && !e.storedBefore(e.order[i-1], v) {
		i--
	}
	e.order = slices.Insert(e.order, i, v)
}

// storedBefore reports whether version a was stored before version b:
// by their resourceVersions, version 0 first.
func (e *Edits) storedBefore(a, b int) bool {
	if a == 0 || b == 0 {
		return a == 0 && b != 0
	}
	c, err := resourceversion.CompareResourceVersion(e.rv[a], e.rv[b])
	if err != nil {
		return a < b
	}
	return c < 0
}

// stored returns the place of version v in the order the versions were
// stored, -1 when it was not (yet).
func (e *Edits) stored(v int) int { return slices.Index(e.order, v) }

// Fail records that the update of version v failed: no answer may carry
// it. It stays in the history, so that versions keep their numbers.
func (e *Edits) Fail(v int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.begin[v] = time.Time{}
	e.end[v] = time.Time{}
}

// Exempt widens the allowance of the requests sent from from on, until
// the returned function is called with the end of the interval.
func (e *Edits) Exempt(from time.Time) (end func(to time.Time)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	i := len(e.exempt)
	e.exempt = append(e.exempt, interval{from, time.Unix(1<<40, 0)})
	return func(to time.Time) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.exempt[i].to = to
	}
}

// Latest returns the version in force, the last one stored, and when its
// update returned.
func (e *Edits) Latest() (int, time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v := e.order[len(e.order)-1]
	return v, e.end[v]
}

// FirstAfter returns the first version whose update began after t, or
// -1 when none has yet.
func (e *Edits) FirstAfter(t time.Time) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	for v, b := range e.begin {
		if b.After(t) && !e.end[v].IsZero() {
			return v
		}
	}
	return -1
}

// Check returns why an answer to a request sent at sent and answered at
// answered may not carry version v, or nil when it may.
func (e *Edits) Check(v int, sent, answered time.Time, maxStale time.Duration) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if v < 0 || v >= len(e.begin) || e.begin[v].IsZero() {
		return fmt.Errorf("version %d was never written", v)
	}
	if !e.begin[v].Before(answered) {
		return fmt.Errorf("version %d was written %s after the answer", v, e.begin[v].Sub(answered))
	}
	since := sent
	for _, x := range e.exempt {
		if !sent.Before(x.from) && !sent.After(x.to) && x.from.Before(since) {
			since = x.from
		}
	}
	since = since.Add(-maxStale)
	oldest := 0 // of the order
	for i := len(e.order) - 1; i > 0; i-- {
		if !e.end[e.order[i]].After(since) {
			oldest = i
			break
		}
	}
	if at := e.stored(v); at >= 0 && at < oldest {
		w := e.order[oldest]
		return fmt.Errorf("version %d is stale: version %d was written %s before the request", v, w, sent.Sub(e.end[w]).Round(time.Millisecond))
	}
	return nil
}

// Staleness returns how long before sent a version stored after v was
// first written (0 when none was yet): how far behind the answer was.
func (e *Edits) Staleness(v int, sent time.Time) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	at := e.stored(v)
	if at < 0 {
		return 0
	}
	var first time.Time
	for _, w := range e.order[at+1:] {
		if first.IsZero() || e.end[w].Before(first) {
			first = e.end[w]
		}
	}
	if first.IsZero() || !first.Before(sent) {
		return 0
	}
	return sent.Sub(first)
}

// BeganAfter reports whether the update of version v began after t.
func (e *Edits) BeganAfter(v int, t time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return v >= 0 && v < len(e.begin) && e.begin[v].After(t)
}

// Exempted reports whether a request sent at sent is within an exempt
// interval.
func (e *Edits) Exempted(sent time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.exempt {
		if !sent.Before(x.from) && !sent.After(x.to) {
			return true
		}
	}
	return false
}
