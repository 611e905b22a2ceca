package main

import (
	"fmt"
	"sync"
	"time"
)

// Edits is the history of the registry's versions: version v was written
// by an update that began at begin[v] and returned at end[v]. Version 0
// is the one the registry held when the webhooks started. It is safe for
// concurrent use.
//
// It decides which versions an answer may carry (the edit race): the
// webhook sees an edit some time after it is written, so an answer may
// carry an older version than the newest, but never one written after
// the answer came back, and never one older than the version in force
// maxStale before the request was sent. Within an exempt interval (the
// webhook cut from the API server, until it caught up) the version in
// force maxStale before the interval began is the oldest allowed: the
// webhook answers from the registry it holds.
type Edits struct {
	mu         sync.Mutex
	begin, end []time.Time
	exempt     []interval
}

type interval struct{ from, to time.Time }

// NewEdits returns a history whose version 0 was written at t.
func NewEdits(t time.Time) *Edits {
	return &Edits{begin: []time.Time{t}, end: []time.Time{t}}
}

// Begin records that the update writing the next version begins at t,
// and returns that version.
func (e *Edits) Begin(t time.Time) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.begin = append(e.begin, t)
	e.end = append(e.end, time.Time{})
	return len(e.begin) - 1
}

// End records that the update of version v returned at t, written.
func (e *Edits) End(v int, t time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.end[v] = t
}

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

// Latest returns the newest version whose update returned, and when.
func (e *Edits) Latest() (int, time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for v := len(e.end) - 1; v >= 0; v-- {
		if !e.end[v].IsZero() {
			return v, e.end[v]
		}
	}
	return 0, time.Time{}
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
	oldest := 0
	for w := len(e.end) - 1; w > 0; w-- {
		if !e.end[w].IsZero() && !e.end[w].After(since) {
			oldest = w
			break
		}
	}
	if v < oldest {
		return fmt.Errorf("version %d is stale: version %d was written %s before the request", v, oldest, sent.Sub(e.end[oldest]).Round(time.Millisecond))
	}
	return nil
}

// Staleness returns how long before sent the version after v was written
// (0 when it was not yet): how far behind the answer was.
func (e *Edits) Staleness(v int, sent time.Time) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	for w := v + 1; w < len(e.end); w++ {
		if e.end[w].IsZero() {
			continue
		}
		if e.end[w].Before(sent) {
			return sent.Sub(e.end[w])
		}
		return 0
	}
	return 0
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
