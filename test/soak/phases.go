package main

import (
	"context"
	"fmt"
	"net/http"
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
			if wh == nil {
				continue
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
// lease (the stopped one releases it), and starts it again. Waiting makes
// the leader change certain: a replica that came back at once could win
// the lease again before the other one tried.
func (rep *Report) restart(ctx context.Context, replicas []*Replica, tally *Tally) {
	var leader, other *Replica
	_ = waitFor(30*time.Second, func() error {
		for i, r := range replicas {
			if r.Log.Leading() {
				leader, other = r, replicas[1-i]
				return nil
			}
		}
		return fmt.Errorf("no replica leads")
	})
	if leader == nil {
		tally.Violate("no replica led before the restart")
		leader, other = replicas[0], replicas[1]
	}
	step("restarting replica " + leader.Name + ", the leader")
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
		tally.Violate("no leader change after the leader stopped: %v", err)
	}
	if err := leader.Up(ctx); err != nil {
		tally.Violate("restarting replica %s: %v", leader.Name, err)
		return
	}
	rep.RestartReady = time.Since(t0)
}

// cut cuts the replicas off the API server for cfg.Cut, probing them
// meanwhile, heals the link and waits until both answer with an edit
// made after it healed.
func (rep *Report) cut(ctx context.Context, cfg Config, link *Relay, watch *Watch, replicas []*Replica, edits *Edits, client *http.Client, nonce string, tally *Tally) {
	step(fmt.Sprintf("cutting the replicas off the API server for %s", cfg.Cut))
	termsBefore := endedTerms(replicas)
	cutStart := time.Now()
	rep.CutAt = cutStart.Sub(rep.Start)
	endExempt := edits.Exempt(cutStart)
	watch.cutting.Store(true)
	if err := link.Cut(); err != nil {
		tally.Violate("cutting the link: %v", err)
	}
	rep.CutClosed = link.Closed.Load()
	rep.CutVersion, _ = edits.Latest()
	for time.Since(cutStart) < cfg.Cut && ctx.Err() == nil {
		for _, r := range replicas {
			v, err := probe(client, r, namespaces[0], nonce)
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
	if err := link.Heal(); err != nil {
		tally.Violate("healing the link: %v", err)
	}
	healed := time.Now()
	watch.cutting.Store(false)
	rep.CutLost = endedTerms(replicas) - termsBefore
	step("the link is back")
	var after int
	err := waitFor(cfg.CatchUp, func() error {
		if after = edits.FirstAfter(healed); after < 0 {
			return fmt.Errorf("no edit written since the link healed")
		}
		for _, r := range replicas {
			if v, err := probe(client, r, namespaces[0], nonce); err != nil || v < after {
				return fmt.Errorf("replica %s answers version %d (%v), want %d or later", r.Name, v, err, after)
			}
		}
		return nil
	})
	rep.HealVersion = after
	if err != nil {
		tally.Violate("after the cut: %v", err)
		endExempt(healed.Add(cfg.CatchUp))
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
