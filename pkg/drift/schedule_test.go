package drift

import (
	"context"
	"testing"
	"time"
)

// fakeTimers is a clock whose timers the test fires: each After is sent
// to the test, which fires the channel when it wants.
type fakeTimers chan fakeTimer

type fakeTimer struct {
	d    time.Duration
	fire chan time.Time
}

func (f fakeTimers) After(d time.Duration) <-chan time.Time {
	t := fakeTimer{d, make(chan time.Time, 1)}
	f <- t
	return t.fire
}

// TestScheduleDebounces: Run scans when the interval ends; a burst of
// changes is scanned once, Debounce after the last one (each change
// restarts the debounce, the earlier timers fire into nothing); after a
// scan the interval starts again.
func TestScheduleDebounces(t *testing.T) {
	timers := make(fakeTimers)
	changed := make(chan struct{})
	scans := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		Schedule{Interval: time.Minute, Debounce: time.Second, After: timers.After}.Run(ctx, changed, func(context.Context) { scans <- struct{}{} })
		close(done)
	}()
	expect := func(d time.Duration) fakeTimer {
		t.Helper()
		tm := <-timers
		if tm.d != d {
			t.Fatalf("timer of %v, want %v", tm.d, d)
		}
		return tm
	}
	tick := expect(time.Minute)
	tick.fire <- time.Time{}
	<-scans // the interval: a scan
	expect(time.Minute)

	changed <- struct{}{}
	first := expect(time.Second)
	changed <- struct{}{}
	last := expect(time.Second)
	first.fire <- time.Time{} // restarted: fires into nothing
	select {
	case changed <- struct{}{}: // Run is still waiting: it takes the change
	case <-scans:
		t.Fatal("a restarted debounce timer scanned")
	}
	last = expect(time.Second)
	last.fire <- time.Time{}
	<-scans // one scan for the burst
	expect(time.Minute)
	cancel()
	<-done
}
