package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// summary is the distribution of one scenario's latencies.
type summary struct {
	p50, p90, p99, mean time.Duration
}

func summarize(lat []time.Duration) summary {
	if len(lat) == 0 {
		return summary{}
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	var total time.Duration
	for _, d := range s {
		total += d
	}
	at := func(p int) time.Duration { return s[(len(s)-1)*p/100] }
	return summary{p50: at(50), p90: at(90), p99: at(99), mean: total / time.Duration(len(s))}
}

// targetWebhookOverMAP is issue 10's target for the webhook's p50 over the
// policy's.
const targetWebhookOverMAP = 1.15

// targetWebhookOverFixed is issue 21's goal for the webhook's p50 over the
// fixed webhook's: what kpatch adds to the cost of any webhook.
const targetWebhookOverFixed = 1.03

// report prints the table, the ratios and the webhook's server-side mean.
func report(w io.Writer, results []result, builds builds, server serverSideFigure, calls callFigure) {
	sums := map[string]summary{}
	fmt.Fprintf(w, "%-10s %9s %9s %9s %9s %9s %6s\n", "scenario", "p50", "p90", "p99", "mean", "p50/floor", "wrong")
	for _, r := range results {
		sums[r.name] = summarize(r.latencies)
	}
	floor := sums["floor"]
	for _, r := range results {
		s := sums[r.name]
		fmt.Fprintf(w, "%-10s %9s %9s %9s %9s %8.2fx %6d\n", r.name, ms(s.p50), ms(s.p90), ms(s.p99), ms(s.mean),
			ratio(s.p50, floor.p50), r.wrong)
	}
	webhook, policy, fixed := sums["webhook"], sums["MAP"], sums["fixed"]
	fmt.Fprintln(w)
	fmt.Fprintf(w, "webhook / floor: p50 %.2fx, mean %.2fx\n", ratio(webhook.p50, floor.p50), ratio(webhook.mean, floor.mean))
	fmt.Fprintf(w, "MAP / floor:     p50 %.2fx, mean %.2fx\n", ratio(policy.p50, floor.p50), ratio(policy.mean, floor.mean))
	fmt.Fprintf(w, "webhook / MAP:   p50 %.2fx, mean %.2fx (target: p50 <= %.2fx)\n",
		ratio(webhook.p50, policy.p50), ratio(webhook.mean, policy.mean), targetWebhookOverMAP)
	fmt.Fprintf(w, "fixed / MAP:     p50 %.2fx, mean %.2fx\n", ratio(fixed.p50, policy.p50), ratio(fixed.mean, policy.mean))
	fmt.Fprintf(w, "webhook / fixed: p50 %.2fx, mean %.2fx (goal: p50 <= %.2fx)\n",
		ratio(webhook.p50, fixed.p50), ratio(webhook.mean, fixed.mean), targetWebhookOverFixed)
	fmt.Fprintf(w, "webhook added over the floor: p50 %s, over the MAP: p50 %s, over the fixed webhook: p50 %s\n",
		ms(webhook.p50-floor.p50), ms(webhook.p50-policy.p50), ms(webhook.p50-fixed.p50))
	for _, r := range results[len(results)-len(builds):] {
		s := sums[r.name]
		fmt.Fprintf(w, "%s / webhook: p50 %.2fx, mean %.2fx; %s / fixed: p50 %.2fx\n", r.name,
			ratio(s.p50, webhook.p50), ratio(s.mean, webhook.mean), r.name, ratio(s.p50, fixed.p50))
	}
	if server.err != nil {
		fmt.Fprintf(w, "webhook server-side mean (%s): unavailable: %v\n", latencyMetric, server.err)
	} else {
		fmt.Fprintf(w, "webhook server-side mean (%s): %s over %d requests, of it applying the files (%s: values, engine, check, JSONPatch) %s\n",
			latencyMetric, us(server.mean), server.requests, applyMetric, us(server.apply))
		fmt.Fprintf(w, "webhook process CPU time per request: %s\n", us(server.cpu))
	}
	reportCalls(w, results, calls)
	for _, r := range results {
		if r.wrong > 0 {
			fmt.Fprintf(w, "warning: %d answers of %s did not show the change as expected: its figures mix in other paths\n", r.wrong, r.name)
		}
	}
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

func us(d time.Duration) string { return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond)) }

// reportCalls prints the API server's mean call of each webhook, and how
// much longer the webhook's is than the fixed webhook's.
func reportCalls(w io.Writer, results []result, calls callFigure) {
	if calls.err != nil {
		fmt.Fprintf(w, "the API server's mean webhook call (%s): unavailable: %v\n", callMetric, calls.err)
		return
	}
	var parts []string
	for _, r := range results {
		if d, ok := calls.means[r.name]; ok {
			parts = append(parts, r.name+" "+ms(d))
		}
	}
	fmt.Fprintf(w, "the API server's mean webhook call (%s): %s", callMetric, strings.Join(parts, ", "))
	if webhook, fixed := calls.means["webhook"], calls.means["fixed"]; webhook > 0 && fixed > 0 {
		fmt.Fprintf(w, "; webhook - fixed %s", ms(webhook-fixed))
	}
	fmt.Fprintln(w)
}
