package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

// Report is what a soak run saw, beside its Tally.
type Report struct {
	Config
	Dir                   string
	Start                 time.Time
	Elapsed               time.Duration
	LoadBefore, LoadAfter string
	Versions, EditErrors  int
	Staleness             []time.Duration
	CutStaleness          []time.Duration
	APIFailedBefore       int
	Swept                 int

	RestartAt, RestartReady, LeaderChange time.Duration
	Restarted, NewLeader                  string

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
	p("# make soak SOAK_DURATION=%s    (go run ./test/soak -duration %s -cut %s -rate %g -workers %d -forged-rate %g -slow %d)",
		rep.Duration, rep.Duration, rep.Cut, rep.Rate, rep.Workers, rep.ForgedRate, rep.Config.Slow)
	p("%d CPUs, load average %s before and %s after (1, 5, 15 min); %s of load", runtime.NumCPU(), rep.LoadBefore, rep.LoadAfter, rep.Elapsed.Round(time.Second))
	p("registry: %d versions written, one a second (%d writes failed)", rep.Versions, rep.EditErrors)
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
	p("restart: replica %s (the leader) stopped at %s; replica %s elected %s later; replica %s started again once it was, ready %s after its stop began",
		rep.Restarted, rep.RestartAt.Round(time.Second), rep.NewLeader, rep.LeaderChange.Round(100*time.Millisecond), rep.Restarted, rep.RestartReady.Round(100*time.Millisecond))
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
		p("PASS: nothing admitted unpatched where the registry in force patches it, no answer refused, no answer with another namespace's data, ready throughout")
		return true
	}
	p("FAIL: %d violations", n)
	for _, v := range violations {
		p("  %s", v)
	}
	return false
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
