package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kpatch.dev/kpatch/test/cluster"
)

// latencyMetric is controller-runtime's histogram of the time the webhook
// server spends on a request, from reading it to writing the answer.
const latencyMetric = "controller_runtime_webhook_latency_seconds"

// callMetric is the API server's histogram of its calls to admission
// webhooks, labelled by the webhook's name: the whole round trip as the
// API server sees it, from sending the review to having read the answer.
const callMetric = "apiserver_admission_webhook_admission_duration_seconds"

// errNoHistogram is returned when the metrics hold no sample of the
// histogram asked for.
var errNoHistogram = errors.New("no such histogram in the metrics")

// histogramTotals are a histogram's _sum and _count, over all its series.
type histogramTotals struct {
	sum   float64
	count float64
}

// applyMetric is the webhook's histogram of the time it takes to apply
// the files to one object: binding their values, the engine, the check
// against the kind's schema and the JSONPatch (not reading, decoding or
// answering the review).
const applyMetric = "kpatch_apply_duration_seconds"

// webhookTotals are the webhook's own histograms read at one time.
type webhookTotals struct {
	latency, apply histogramTotals
}

// scrapeWebhookLatency reads latencyMetric and applyMetric from the
// webhook's metrics endpoint, over HTTPS with a token allowed to read it.
func scrapeWebhookLatency(ctx context.Context, c *cluster.Cluster, w *cluster.Webhook, token string) (webhookTotals, error) {
	code, body, err := c.Scrape(ctx, w, token)
	if err != nil {
		return webhookTotals{}, err
	}
	if code != http.StatusOK {
		return webhookTotals{}, fmt.Errorf("GET %s: %d", w.MetricsURL, code)
	}
	latency, err := parseHistogramTotals(strings.NewReader(body), latencyMetric)
	if err != nil {
		return webhookTotals{}, err
	}
	apply, err := parseHistogramTotals(strings.NewReader(body), applyMetric)
	return webhookTotals{latency: latency, apply: apply}, err
}

// parseHistogramTotals adds up the _sum and _count samples of the
// histogram name in the Prometheus text format.
func parseHistogramTotals(r io.Reader, name string) (histogramTotals, error) {
	all := func(string) (string, bool) { return "", true }
	totals, err := parseHistogram(r, name, all)
	if err != nil {
		return histogramTotals{}, fmt.Errorf("%s: %w", name, err)
	}
	return totals[""], nil
}

// parseHistogramByLabel adds up the _sum and _count samples of the
// histogram name in the Prometheus text format, per value of label
// (samples without it are left out).
func parseHistogramByLabel(r io.Reader, name, label string) (map[string]histogramTotals, error) {
	totals, err := parseHistogram(r, name, func(line string) (string, bool) { return labelValue(line, label) })
	if err != nil {
		return nil, fmt.Errorf("%s by %s: %w", name, label, err)
	}
	return totals, nil
}

// parseHistogram adds up the _sum and _count samples of the histogram
// name in the Prometheus text format, per the key of each sample's line
// (a line key leaves out is not counted); errNoHistogram when none is.
func parseHistogram(r io.Reader, name string, key func(line string) (string, bool)) (map[string]histogramTotals, error) {
	out := map[string]histogramTotals{}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for scanner.Scan() {
		line := scanner.Text()
		metric, value, ok := sample(line)
		if !ok || (metric != name+"_sum" && metric != name+"_count") {
			continue
		}
		k, ok := key(line)
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", line, err)
		}
		t := out[k]
		if metric == name+"_sum" {
			t.sum += v
		} else {
			t.count += v
		}
		out[k] = t
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errNoHistogram
	}
	return out, nil
}

// labelValue is the value of label in a sample line's {labels}; label
// values the API server writes hold no quote or backslash.
func labelValue(line, label string) (string, bool) {
	open, closing := strings.IndexByte(line, '{'), strings.LastIndexByte(line, '}')
	if open < 0 || closing < open {
		return "", false
	}
	for _, pair := range strings.Split(line[open+1:closing], ",") {
		k, v, ok := strings.Cut(pair, "=")
		if ok && k == label && len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			return v[1 : len(v)-1], true
		}
	}
	return "", false
}

// meanDelta is the mean of the samples added between before and after,
// 0 when none were.
func meanDelta(before, after histogramTotals) time.Duration {
	n := after.count - before.count
	if n <= 0 {
		return 0
	}
	return time.Duration((after.sum - before.sum) / n * float64(time.Second))
}

// sample splits a sample line of the text format, `name{labels} value
// [timestamp]`, into the metric's name and its value.
func sample(line string) (name, value string, ok bool) {
	if line == "" || line[0] == '#' {
		return "", "", false
	}
	end := strings.IndexAny(line, "{ ")
	if end < 0 {
		return "", "", false
	}
	name, rest := line[:end], line[end:]
	if rest[0] == '{' {
		closing := strings.LastIndexByte(rest, '}')
		if closing < 0 {
			return "", "", false
		}
		rest = rest[closing+1:]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", "", false
	}
	return name, fields[0], true
}

// serverSideFigure is the webhook's own mean time per request over the
// run, the part of it spent applying the files, and the CPU time its
// process used per request (cpu 0 when it could not be read), or why
// they are unavailable.
type serverSideFigure struct {
	mean     time.Duration
	apply    time.Duration
	cpu      time.Duration
	requests int
	err      error
}

// serverSide is the figure from the histograms' totals and the process's
// CPU seconds before and after the run.
func serverSide(before, after webhookTotals, cpuBefore, cpuAfter float64, err error) serverSideFigure {
	if err != nil {
		return serverSideFigure{err: err}
	}
	n := after.latency.count - before.latency.count
	if n <= 0 {
		return serverSideFigure{err: errors.New("the webhook counted no request during the run")}
	}
	cpu := time.Duration((cpuAfter - cpuBefore) / n * float64(time.Second))
	return serverSideFigure{mean: meanDelta(before.latency, after.latency), apply: meanDelta(before.apply, after.apply), cpu: cpu, requests: int(n)}
}

// callFigure is the API server's mean call of each measured webhook over
// the run, by scenario name, or why it is unavailable.
type callFigure struct {
	means map[string]time.Duration
	err   error
}

// webhookCalls is the figure from the API server's callMetric before and
// after the run; names maps a scenario to its webhook's name.
func webhookCalls(before, after map[string]histogramTotals, names map[string]string, err error) callFigure {
	if err != nil {
		return callFigure{err: err}
	}
	means := map[string]time.Duration{}
	for scenario, name := range names {
		if d := meanDelta(before[name], after[name]); d > 0 {
			means[scenario] = d
		}
	}
	return callFigure{means: means}
}
