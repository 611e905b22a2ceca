package main

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

const exposition = `# HELP controller_runtime_webhook_latency_seconds Histogram of the latency of processing admission requests
# TYPE controller_runtime_webhook_latency_seconds histogram
controller_runtime_webhook_latency_seconds_bucket{webhook="/mutate",le="0.005"} 9
controller_runtime_webhook_latency_seconds_bucket{webhook="/mutate",le="+Inf"} 10
controller_runtime_webhook_latency_seconds_sum{webhook="/mutate"} 0.0125
controller_runtime_webhook_latency_seconds_count{webhook="/mutate"} 10
controller_runtime_webhook_latency_seconds_sum{webhook="/other"} 0.5 1700000000000
controller_runtime_webhook_latency_seconds_count{webhook="/other"} 2
controller_runtime_webhook_latency_seconds_countless 99
kpatch_admission_requests_total{result="mutated"} 10
`

func TestParseHistogramTotalsAddsSeries(t *testing.T) {
	got, err := parseHistogramTotals(strings.NewReader(exposition), latencyMetric)
	if err != nil {
		t.Fatal(err)
	}
	if got.sum != 0.5125 || got.count != 12 {
		t.Errorf("got sum %v count %v, want 0.5125 and 12", got.sum, got.count)
	}
}

func TestParseHistogramTotalsMissing(t *testing.T) {
	_, err := parseHistogramTotals(strings.NewReader("kpatch_registry_active_files 1\n"), latencyMetric)
	if !errors.Is(err, errNoHistogram) {
		t.Errorf("got %v, want errNoHistogram", err)
	}
}

func TestServerSideIsTheDeltaMean(t *testing.T) {
	before := webhookTotals{latency: histogramTotals{sum: 1, count: 100}, apply: histogramTotals{sum: 0.1, count: 90}}
	after := webhookTotals{latency: histogramTotals{sum: 1.05, count: 200}, apply: histogramTotals{sum: 0.102, count: 190}}
	got := serverSide(before, after, 2, 2.03, nil)
	if got.err != nil || got.requests != 100 || got.mean.Round(time.Microsecond) != 500*time.Microsecond {
		t.Errorf("got %+v, want 500µs over 100 requests", got)
	}
	if got.apply.Round(time.Microsecond) != 20*time.Microsecond {
		t.Errorf("apply %v per request, want 20µs", got.apply)
	}
	if got.cpu.Round(time.Microsecond) != 300*time.Microsecond {
		t.Errorf("cpu %v per request, want 300µs", got.cpu)
	}
	if got := serverSide(webhookTotals{latency: histogramTotals{count: 3}}, webhookTotals{latency: histogramTotals{count: 3}}, 0, 0, nil); got.err == nil {
		t.Error("no request counted: want an error")
	}
}

const apiServerExposition = `# TYPE apiserver_admission_webhook_admission_duration_seconds histogram
apiserver_admission_webhook_admission_duration_seconds_bucket{name="bench-fixed.bench.kpatch.dev",operation="CREATE",rejected="false",type="admit",le="0.005"} 4
apiserver_admission_webhook_admission_duration_seconds_sum{name="bench-fixed.bench.kpatch.dev",operation="CREATE",rejected="false",type="admit"} 0.008
apiserver_admission_webhook_admission_duration_seconds_count{name="bench-fixed.bench.kpatch.dev",operation="CREATE",rejected="false",type="admit"} 4
apiserver_admission_webhook_admission_duration_seconds_sum{name="mutate.kpatch.dev",operation="CREATE",rejected="false",type="admit"} 0.01
apiserver_admission_webhook_admission_duration_seconds_count{name="mutate.kpatch.dev",operation="CREATE",rejected="false",type="admit"} 4
apiserver_admission_webhook_admission_duration_seconds_sum{name="mutate.kpatch.dev",operation="UPDATE",rejected="false",type="admit"} 0.002
apiserver_admission_webhook_admission_duration_seconds_count{name="mutate.kpatch.dev",operation="UPDATE",rejected="false",type="admit"} 1
apiserver_admission_webhook_admission_duration_seconds_sum{operation="CREATE"} 9
apiserver_admission_step_admission_duration_seconds_sum{name="mutate.kpatch.dev"} 7
`

// TestParseHistogramByLabel adds up each webhook's series (both
// operations of mutate.kpatch.dev) and leaves out samples without the
// label and other histograms.
func TestParseHistogramByLabel(t *testing.T) {
	got, err := parseHistogramByLabel(strings.NewReader(apiServerExposition), callMetric, "name")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]histogramTotals{
		"bench-fixed.bench.kpatch.dev": {sum: 0.008, count: 4},
		"mutate.kpatch.dev":            {sum: 0.012, count: 5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, w := range want {
		if g := got[k]; math.Abs(g.sum-w.sum) > 1e-12 || g.count != w.count {
			t.Errorf("%s: got %+v, want %+v", k, g, w)
		}
	}
	if _, err := parseHistogramByLabel(strings.NewReader(exposition), callMetric, "name"); !errors.Is(err, errNoHistogram) {
		t.Errorf("no such histogram: got %v, want errNoHistogram", err)
	}
}

// TestWebhookCallsAreTheDeltaMeans gives each scenario the mean of the
// calls added during the run, and none to a webhook not called.
func TestWebhookCallsAreTheDeltaMeans(t *testing.T) {
	before := map[string]histogramTotals{"f": {sum: 1, count: 10}, "w": {sum: 2, count: 10}}
	after := map[string]histogramTotals{"f": {sum: 1.2, count: 110}, "w": {sum: 2.3, count: 110}, "idle": {sum: 5, count: 5}}
	got := webhookCalls(before, after, map[string]string{"fixed": "f", "webhook": "w", "other": "missing"}, nil)
	if got.err != nil || got.means["fixed"].Round(time.Microsecond) != 2*time.Millisecond ||
		got.means["webhook"].Round(time.Microsecond) != 3*time.Millisecond {
		t.Errorf("got %+v, want fixed 2ms and webhook 3ms", got)
	}
	if _, ok := got.means["other"]; ok {
		t.Errorf("a webhook not called has a mean: %v", got.means)
	}
	if got := webhookCalls(nil, nil, nil, errors.New("down")); got.err == nil {
		t.Error("want the scrape's error")
	}
}

func TestProfileSecondsCoverTheRun(t *testing.T) {
	if got := profileSeconds(25*time.Millisecond, 500); got != 13 {
		t.Errorf("500 iterations of 25ms: %d s, want 13", got)
	}
	if got := profileSeconds(time.Millisecond, 1); got != 1 {
		t.Errorf("a short run: %d s, want 1", got)
	}
}
