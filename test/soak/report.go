package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
)

// Report is what a soak run saw, beside its Tally.
type Report struct {
	Config
	Dir                   string
	Start                 time.Time
	Elapsed               time.Duration
	LoadBefore, LoadAfter string
	Versions              int
	EditErrors            atomic.Int64
	Staleness             []time.Duration
	CutStaleness          []time.Duration
	APIFailedBefore       int
	Swept                 int

	RestartAt, RestartReady, LeaderChange time.Duration
	Restarted, NewLeader                  string
	// Restart is what the reviews posted straight to the restarted
	// replica got, from its launch.
	Restart *StartProbe

	Races    Races
	Flooding Flooding
	Forgery  Forgery
	// Operations and Updated: Load's.
	Operations, Updated [2]int

	CutAt, CatchUp                                time.Duration
	CutClosed                                     int64
	CutVersion, HealVersion, CutLost              int
	CutProbes, CutAnswered                        int
	CutChecks, ReadyFailures                      int64
	Slow                                          *SlowBodies
	Front                                         *Relay
	RSS                                           []RSSSample
	APIRefused, APIUnreachable, APIMetrics, Terms []string
	Warnings                                      []string
	WarningCount                                  int
}

// Print writes the report and returns whether the soak passed.
func (rep *Report) Print(w io.Writer, tally *Tally) bool {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("# make soak SOAK_DURATION=%s    (go run ./test/soak -duration %s -cut %s -rate %g -workers %d -forged-rate %g -slow %d -unsynced %s -race-every %s -flood %s -flood-rate %g -events-rate %g -flood-p99 %s)",
		rep.Duration, rep.Duration, rep.Cut, rep.Rate, rep.Workers, rep.ForgedRate, rep.Config.Slow, rep.Unsynced, rep.RaceEvery, rep.Flood, rep.FloodRate, rep.EventsRate, rep.FloodP99)
	p("%d CPUs, load average %s before and %s after (1, 5, 15 min); %s of load", runtime.NumCPU(), rep.LoadBefore, rep.LoadAfter, rep.Elapsed.Round(time.Second))
	p("registry: %d versions written, one a second (%d writes failed)", rep.Versions, rep.EditErrors.Load())
	p("")
	p("%-30s %8s %10s %7s %7s %8s %9s %9s", "answers", "patched", "unpatched", "denied", "errors", "refused", "p50", "p99")
	var api []string
	for _, ch := range tally.Channels() {
		if ch != forgedChannel {
			api = append(api, ch)
		}
	}
	row := func(name string, chs ...string) {
		c := tally.Counts(chs...)
		lat := tally.Latencies(chs...)
		p("%-30s %8d %10d %7d %7d %8d %9s %9s", name, c[Patched], c[AllowedUnpatched], c[Denied], c[Errored], c[Refused], ms(percentile(lat, 50)), ms(percentile(lat, 99)))
	}
	for _, ch := range api {
		row(ch, ch)
	}
	row("all through the API server", api...)
	row(forgedChannel, forgedChannel)
	p("")
	p("staleness of the answers (how long a newer version had been written): p50 %s, p99 %s, max %s; from the cut until caught up, max %s",
		ms(percentile(rep.Staleness, 50)), ms(percentile(rep.Staleness, 99)), ms(percentile(rep.Staleness, 100)), ms(percentile(rep.CutStaleness, 100)))
	p("stored objects checked at the end: %d", rep.Swept)
	p("warnings with the answers through the API server: %d", rep.WarningCount)
	for _, w := range rep.Warnings {
		p("  %s", w)
	}
	if rep.Front != nil {
		p("connections of the API server to the replicas: a %d, b %d", rep.Front.Forwarded[0].Load(), rep.Front.Forwarded[1].Load())
	}
	if rep.Slow != nil {
		p("slow-body connections: %d held all along, %d opened in all, %d answered and closed by a replica's read timeout", rep.Config.Slow, rep.Slow.Opened.Load(), rep.Slow.Answered.Load())
	}
	p("restart: replica %s (the leader) stopped at %s; replica %s elected %s later; replica %s started again once it was, kept from the registry for its first %s, ready %s after its stop began",
		rep.Restarted, rep.RestartAt.Round(time.Second), rep.NewLeader, rep.LeaderChange.Round(100*time.Millisecond), rep.Restarted, rep.Unsynced, rep.RestartReady.Round(100*time.Millisecond))
	if rep.Restart != nil {
		p("  from its launch until a second after it was ready, %s", rep.Restart)
	}
	rep.printPhases(p)
	p("cut: at %s for %s, %d connections to the API server closed, %d terms of leadership ended; %d of %d reviews posted to the replicas meanwhile answered with the patch of the version they held (%d when the cut began); /readyz checked %d times meanwhile, %d failures in the whole run",
		rep.CutAt.Round(time.Second), rep.Cut, rep.CutClosed, rep.CutLost, rep.CutAnswered, rep.CutProbes, rep.CutVersion, rep.CutChecks, rep.ReadyFailures)
	p("after the cut: version %d, the first edit after it healed, answered by both replicas %s after it healed", rep.HealVersion, rep.CatchUp.Round(100*time.Millisecond))
	p("leadership: %s", strings.Join(rep.Terms, "; "))
	p("API server, during the load: %d answers refused, %d calls failed open without an answer (%d before the load, while the soak set up and no replica ran)",
		len(rep.APIRefused), len(rep.APIUnreachable), rep.APIFailedBefore)
	for _, l := range first(rep.APIUnreachable, 5) {
		p("  %s", l)
	}
	for _, l := range rep.APIMetrics {
		p("  %s", l)
	}
	p("")
	rep.printRSS(p)
	p("")
	n, violations := tally.Violations()
	if n == 0 {
		p("PASS: nothing admitted unpatched where the registry in force patches it, no answer refused, no answer with another namespace's data, ready throughout, 503 until synced, the edit races converged, Events within their rate, the UPDATE-only file on UPDATE only, the planted last good version refused")
		return true
	}
	p("FAIL: %d violations", n)
	for _, v := range violations {
		p("  %s", v)
	}
	return false
}

// printPhases prints what the edit races, the flood, the UPDATE-only
// file and the forgery came to.
func (rep *Report) printPhases(p func(string, ...any)) {
	r := rep.Races
	p("edit races: %d, two edits at once each (the one begun first stored last in %d); both replicas answered the version stored last %s after the later write at p50, %s at most; %d creates through the API server after them, each answered with it",
		r.Raced, r.Reversed, ms(percentile(r.Converged, 50)), ms(percentile(r.Converged, 100)), r.Checked)
	f := rep.Flooding
	p("flood: at %s, %d creates in %s on top of the load; the webhook's own answers meanwhile (%d posted straight to it) p50 %s, p99 %s (%d unanswered); %d calls of the API server failed open during it",
		f.At.Round(time.Second), f.Created, rep.Flood, len(f.Direct), ms(percentile(f.Direct, 50)), ms(percentile(f.Direct, 99)), f.DirectErrors, f.FailedOpen)
	p("Events (--events-on-patch-rate %g): %d Patched Events recorded in the whole run, at most %d allowed over the replicas' runs, for %d real writes answered with a patch; dropped past the rate by the replicas' last processes: %v",
		rep.EventsRate, f.Events, f.Bound, f.Writes, f.Dropped)
	p("UPDATE-only file: on %d of %d updates answered with a patch, on %d of %d creates", rep.Updated[1], rep.Operations[1], rep.Updated[0], rep.Operations[0])
	g := rep.Forgery
	p("last good store: at %s, a forged version planted with both replicas stopped (the genuine version's resourceVersion %s and uid kept, its digests right); refused by the replicas that read it (kpatch_last_good_refused_total %v), dropped from the store %s after they were ready; %d reviews posted straight to them after, none answered with it",
		g.At.Round(time.Second), g.ResourceVersion, g.Refused, g.Dropped.Round(100*time.Millisecond), g.Probed)
	for i, sp := range g.Starts {
		if sp != nil {
			p("  replica %s started again: %s", []string{"a", "b"}[i], sp)
		}
	}
}

// printRSS prints the replicas' resident memory at about twenty times of
// the run, and each one's least and most.
func (rep *Report) printRSS(p func(string, ...any)) {
	if len(rep.RSS) == 0 {
		return
	}
	every := max((rep.Elapsed / 20).Round(5*time.Second), 5*time.Second)
	p("resident memory (MiB), sampled from /proc every 5 s:")
	p("%8s %8s %8s", "time", "a", "b")
	n := len(rep.RSS[0].Bytes)
	lo, hi := make([]int64, n), make([]int64, n)
	next := time.Duration(0)
	for i, s := range rep.RSS {
		for r, b := range s.Bytes {
			if b > 0 && (lo[r] == 0 || b < lo[r]) {
				lo[r] = b
			}
			hi[r] = max(hi[r], b)
		}
		if s.At >= next || i == len(rep.RSS)-1 {
			p("%8s %8s %8s", s.At.Round(time.Second), mib(s.Bytes[0]), mib(s.Bytes[1]))
			next = s.At + every
		}
	}
	for r, name := range []string{"a", "b"} {
		p("replica %s: %s to %s MiB", name, mib(lo[r]), mib(hi[r]))
	}
}

func mib(b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(b)/(1<<20))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }

func first(s []string, n int) []string { return s[:min(n, len(s))] }
