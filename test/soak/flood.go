package main

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	eventsv1 "k8s.io/api/events/v1"
)

// Flooding is what the flood and the Events of --events-on-patch came
// to.
type Flooding struct {
	At time.Duration // since the load began
	// Created counts the flood's creates answered.
	Created int64
	// Direct are the latencies of the reviews posted straight to the
	// replicas during the flood; DirectErrors those without an answer.
	Direct       []time.Duration
	DirectErrors int
	// FailedOpen counts the calls of the API server to the webhook that
	// failed open during the flood.
	FailedOpen int
	// Events is how many Patched Events the replicas recorded in the
	// whole run (each Event's series counted), Bound the most their
	// --events-on-patch-rate allows, Writes the real writes through the
	// API server answered with a patch (each one Event without the
	// rate). Dropped is kpatch_patch_events_dropped_total{reason=
	// "rate-limited"} of each replica's last process.
	Events, Bound, Writes int
	Dropped               []float64
}

// floodWorkers create the flood's objects.
const floodWorkers = 8

// flood creates Pods the registry targets at FloodRate for Flood, on top
// of the load: each is patched, and with --events-on-patch each would be
// an Event, far past the replicas' --events-on-patch-rate. Meanwhile
// reviews posted straight to the replicas time the webhook's own answers.
// A call of the API server that failed open during the flood is a
// violation, as a p99 of those answers above FloodP99; every create is
// judged as the load's are.
func (s *Soak) flood(ctx context.Context) {
	if s.Flood <= 0 {
		return
	}
	step(fmt.Sprintf("a flood of %g creates a second for %s", s.FloodRate, s.Flood))
	f := &s.Report.Flooding
	f.At = time.Since(s.Report.Start)
	_, failedBefore, _ := s.APILog.Failed()
	fctx, cancel := context.WithTimeout(ctx, s.Flood)
	defer cancel()
	tokens := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { pace(fctx, s.FloodRate, tokens) })
	var n atomic.Int64
	for range floodWorkers {
		wg.Go(func() {
			for {
				select {
				case <-fctx.Done():
					return
				case <-tokens:
				}
				i := n.Add(1)
				s.Load.create(fctx, chFlood, pod(namespaces[int(i)%len(namespaces)], fmt.Sprintf("%sf-%d", targetPrefix, i)), true, false)
			}
		})
	}
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for k := 0; ; k++ {
			select {
			case <-fctx.Done():
				return
			case <-tick.C:
			}
			r := s.Replicas[k%len(s.Replicas)]
			if !r.Serving() {
				continue
			}
			sent := time.Now()
			v, err := probe(s.HTTP, r, namespaces[0], s.Nonce)
			if err == nil {
				err = s.Edits.Check(v, sent, time.Now(), s.MaxStale)
			}
			switch {
			case err == nil:
				f.Direct = append(f.Direct, time.Since(sent))
			case isTransport(err):
				f.DirectErrors++
			default:
				s.Tally.Violate("replica %s during the flood: %v", r.Name, err)
			}
		}
	})
	wg.Wait()
	f.Created = n.Load()
	_, failed, _ := s.APILog.Failed()
	if f.FailedOpen = len(failed) - len(failedBefore); f.FailedOpen > 0 {
		s.Tally.Violate("%d calls of the API server to the webhook failed open during the flood: %s", f.FailedOpen, failed[len(failedBefore)])
	}
	if p99 := percentile(f.Direct, 99); p99 > s.FloodP99 {
		s.Tally.Violate("during the flood, the webhook's own answers took %s at p99, more than %s", ms(p99), ms(s.FloodP99))
	}
}

// patchEvents counts the Patched Events the replicas recorded in the whole
// run, every namespace and each Event's series counted: more than
// --events-on-patch-rate allows each of their processes (a second's worth
// at its start, then the rate) is a violation.
func (s *Soak) patchEvents(ctx context.Context) {
	f := &s.Report.Flooding
	var list eventsv1.EventList
	if err := s.Cluster.Client.List(ctx, &list); err != nil {
		s.Tally.Violate("listing the Events: %v", err)
		return
	}
	for _, e := range list.Items {
		if e.Reason != "Patched" {
			continue
		}
		f.Events++
		if e.Series != nil && e.Series.Count > 1 {
			f.Events += int(e.Series.Count) - 1
		}
	}
	var runs []time.Duration
	for _, r := range s.Replicas {
		runs = append(runs, r.Runs()...)
		v, err := s.Cluster.Metric(ctx, r.Webhook(), `kpatch_patch_events_dropped_total{reason="rate-limited"}`)
		if err != nil {
			s.Tally.Violate("replica %s: %v", r.Name, err)
		}
		f.Dropped = append(f.Dropped, v)
	}
	f.Bound = eventBound(s.EventsRate, runs)
	c := s.Tally.Counts(chCreate, chUpdate, chFlood)
	f.Writes = c[Patched]
	if f.Events > f.Bound {
		s.Tally.Violate("the replicas recorded %d Patched Events, more than the %d their --events-on-patch-rate %g allows over their runs", f.Events, f.Bound, s.EventsRate)
	}
}

// eventBound is the most Events processes that ran for runs may record
// at rate a second: as many at once as one second allows, then the rate.
func eventBound(rate float64, runs []time.Duration) int {
	bound := 0.0
	for _, d := range runs {
		bound += math.Ceil(rate) + rate*d.Seconds()
	}
	return int(math.Floor(bound))
}
