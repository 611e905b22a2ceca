package main

import (
	"errors"
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
	got := serverSide(histogramTotals{sum: 1, count: 100}, histogramTotals{sum: 1.05, count: 200}, 2, 2.03, nil)
	if got.err != nil || got.requests != 100 || got.mean.Round(time.Microsecond) != 500*time.Microsecond {
		t.Errorf("got %+v, want 500µs over 100 requests", got)
	}
	if got.cpu.Round(time.Microsecond) != 300*time.Microsecond {
		t.Errorf("cpu %v per request, want 300µs", got.cpu)
	}
	if got := serverSide(histogramTotals{count: 3}, histogramTotals{count: 3}, 0, 0, nil); got.err == nil {
		t.Error("no request counted: want an error")
	}
}
