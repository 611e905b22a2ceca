package drift

import (
	"context"
	"time"
)

// Schedule runs a scan every Interval, and Debounce after the last of a
// burst of registry changes: a change restarts the debounce, so that a
// registry edited file by file is scanned once it settles. A scan that
// runs restarts the interval. Scans never overlap: Run calls scan and
// waits for it.
type Schedule struct {
	Interval, Debounce time.Duration
	// After is the clock's time.After; time.After when nil (a test gives
	// channels it fires itself).
	After func(time.Duration) <-chan time.Time
}

// Run calls scan every Interval and after each burst of values on
// changed, until ctx ends. It does not scan when it starts: the caller
// sends a change once the registry has synced, which scans Debounce
// later.
func (s Schedule) Run(ctx context.Context, changed <-chan struct{}, scan func(context.Context)) {
	after := s.After
	if after == nil {
		after = time.After
	}
	tick := after(s.Interval)
	var settle <-chan time.Time // nil: no change waiting
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			settle = after(s.Debounce)
			continue
		case <-tick:
		case <-settle:
		}
		scan(ctx)
		settle, tick = nil, after(s.Interval)
	}
}
