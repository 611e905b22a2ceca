package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"

	"kpatch.dev/kpatch/test/cluster"
)

// Watch checks every period that each replica's process runs and that its
// /readyz answers OK (a replica being restarted by the soak is not
// checked), and counts the checks made while the replicas are cut off the
// API server.
type Watch struct {
	Replicas []*Replica
	Tally    *Tally
	cutting  atomic.Bool
	// CutChecks counts the readiness checks made during the cut; Failed
	// those that failed, all along.
	CutChecks, Failed atomic.Int64
}

// Run checks until ctx ends.
func (w *Watch) Run(ctx context.Context, period time.Duration) {
	exited := map[*cluster.Webhook]bool{}
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for _, r := range w.Replicas {
			wh := r.Webhook()
			if wh == nil || r.starting.Load() {
				continue // the soak waits for its readiness itself
			}
			if !wh.Running() {
				if !exited[wh] {
					exited[wh] = true
					w.Tally.Violate("replica %s exited (log: %s)", r.Name, r.Log.Path)
				}
				continue
			}
			cut := w.cutting.Load()
			if cut {
				w.CutChecks.Add(1)
			}
			err := r.Ready()
			if r.Webhook() == wh {
				// as the endpoints of a Service follow readiness
				r.ready.Store(err == nil)
			}
			if err != nil && err != errRestarting && r.Webhook() == wh {
				w.Failed.Add(1)
				when := "outside the cut"
				if cut {
					when = "during the cut"
				}
				w.Tally.Violate("replica %s not ready %s: %v", r.Name, when, err)
			}
		}
	}
}

// restart stops the leading replica, waits for the other one to take the
// lease (the stopped one releases it), and starts it again, kept from
// reading the registry for Unsynced after its launch: meanwhile it listens
// with a registry that cannot sync, and the reviews posted straight to it
// must be answered 503 (start). Waiting makes the leader change certain: a
// replica that came back at once could win the lease again before the
// other one tried.
func (s *Soak) restart(ctx context.Context) {
	s.phase.Lock()
	defer s.phase.Unlock()
	rep := s.Report
	var leader, other *Replica
	_ = waitFor(30*time.Second, func() error {
		for i, r := range s.Replicas {
			if r.Log.Leading() {
				leader, other = r, s.Replicas[1-i]
				return nil
			}
		}
		return fmt.Errorf("no replica leads")
	})
	if leader == nil {
		s.Tally.Violate("no replica led before the restart")
		leader, other = s.Replicas[0], s.Replicas[1]
	}
	step("restarting replica " + leader.Name + ", the leader, kept from the registry for " + s.Unsynced.String())
	t0 := time.Now()
	rep.RestartAt = t0.Sub(rep.Start)
	rep.Restarted, rep.NewLeader = leader.Name, other.Name
	leader.Down()
	if err := waitFor(time.Minute, func() error {
		e, ok := other.Log.ElectedAfter(t0)
		if !ok {
			return fmt.Errorf("replica %s was not elected", other.Name)
		}
		rep.LeaderChange = e.Sub(t0)
		return nil
	}); err != nil {
		s.Tally.Violate("no leader change after the leader stopped: %v", err)
	}
	rep.Restart = s.start(ctx, leader, s.Unsynced)
	rep.RestartReady = time.Since(t0)
}

// start launches r, and posts reviews straight to it from its launch
// until a second after it is ready (StartProbe); for the first hold after
// its launch its user may not read the registry (setAccess), so that it
// listens with a registry that cannot sync, and at least one review must
// be answered 503.
func (s *Soak) start(ctx context.Context, r *Replica, hold time.Duration) *StartProbe {
	c := s.Cluster.Client
	if hold > 0 {
		if err := setAccess(ctx, c, r.User, false); err != nil {
			s.Tally.Violate("keeping replica %s from the registry: %v", r.Name, err)
			hold = 0
		}
	}
	p := &StartProbe{}
	launched := time.Now()
	if err := r.Launch(); err != nil {
		s.Tally.Violate("starting replica %s: %v", r.Name, err)
		_ = setAccess(ctx, c, r.User, true)
		return p
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		p.run(ctx, s.HTTP, r, launched, s.Edits, s.MaxStale, s.Nonce, s.Tally, stop)
	}()
	if hold > 0 {
		sleepUntil(ctx, launched.Add(hold))
		if err := setAccess(ctx, c, r.User, true); err != nil {
			s.Tally.Violate("giving replica %s the registry back: %v", r.Name, err)
		}
	}
	err := r.WaitReady(ctx)
	if err == nil {
		sleepUntil(ctx, time.Now().Add(time.Second))
	}
	close(stop)
	<-done
	switch {
	case err != nil:
		s.Tally.Violate("starting replica %s: %v", r.Name, err)
	case p.Patched == 0:
		s.Tally.Violate("replica %s answered no review posted straight to it with the patch once ready: %s", r.Name, p)
	case hold > 0 && p.Unsynced == 0:
		s.Tally.Violate("replica %s answered no review 503 while it could not read the registry: the window was not exercised (%s)", r.Name, p)
	}
	return p
}

// cut cuts the replicas off the API server for Cut, probing them
// meanwhile, heals the link and waits until both answer with an edit
// made after it healed.
func (s *Soak) cut(ctx context.Context) {
	s.phase.Lock()
	defer s.phase.Unlock()
	rep, tally, edits := s.Report, s.Tally, s.Edits
	step(fmt.Sprintf("cutting the replicas off the API server for %s", s.Cut))
	termsBefore := endedTerms(s.Replicas)
	cutStart := time.Now()
	rep.CutAt = cutStart.Sub(rep.Start)
	endExempt := edits.Exempt(cutStart)
	s.Watch.cutting.Store(true)
	if err := s.Link.Cut(); err != nil {
		tally.Violate("cutting the link: %v", err)
	}
	rep.CutClosed = s.Link.Closed.Load()
	rep.CutVersion, _ = edits.Latest()
	for time.Since(cutStart) < s.Cut && ctx.Err() == nil {
		for _, r := range s.Replicas {
			v, err := probe(s.HTTP, r, namespaces[0], s.Nonce)
			rep.CutProbes++
			switch {
			case err != nil:
				tally.Violate("replica %s during the cut: %v", r.Name, err)
			case edits.BeganAfter(v, cutStart):
				tally.Violate("replica %s answered version %d during the cut, written after it began: the link was not cut", r.Name, v)
			default:
				rep.CutAnswered++
			}
		}
		time.Sleep(time.Second)
	}
	if err := s.Link.Heal(); err != nil {
		tally.Violate("healing the link: %v", err)
	}
	healed := time.Now()
	s.Watch.cutting.Store(false)
	rep.CutLost = endedTerms(s.Replicas) - termsBefore
	step("the link is back")
	var after int
	err := waitFor(s.CatchUp, func() error {
		if after = edits.FirstAfter(healed); after < 0 {
			return fmt.Errorf("no edit written since the link healed")
		}
		for _, r := range s.Replicas {
			if v, err := probe(s.HTTP, r, namespaces[0], s.Nonce); err != nil || v < after {
				return fmt.Errorf("replica %s answers version %d (%v), want %d or later", r.Name, v, err, after)
			}
		}
		return nil
	})
	rep.HealVersion = after
	if err != nil {
		tally.Violate("after the cut: %v", err)
		endExempt(healed.Add(s.CatchUp))
		return
	}
	rep.CatchUp = time.Since(healed)
	endExempt(time.Now())
}

func endedTerms(replicas []*Replica) int {
	n := 0
	for _, r := range replicas {
		_, ended := r.Log.Terms()
		n += ended
	}
	return n
}

// apiServerMetrics returns the API server's metrics of the soak's webhook
// that count calls failing open and rejections.
func apiServerMetrics(ctx context.Context, c *cluster.Cluster) []string {
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return []string{err.Error()}
	}
	b, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return []string{err.Error()}
	}
	var lines []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, `"`+webhookName+`"`) &&
			(strings.HasPrefix(line, "apiserver_admission_webhook_fail_open_count") || strings.HasPrefix(line, "apiserver_admission_webhook_rejection_count")) {
			lines = append(lines, line)
		}
	}
	if lines == nil {
		lines = []string{"no fail-open or rejection of " + webhookName}
	}
	return lines
}
