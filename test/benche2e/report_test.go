package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	got := summarize(lat)
	want := summary{p50: 50 * time.Millisecond, p90: 90 * time.Millisecond, p99: 99 * time.Millisecond, mean: 50500 * time.Microsecond}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if lat[0] != 100*time.Millisecond {
		t.Error("summarize sorted its input")
	}
}

// TestReportRatios holds the report's ratios to the scenarios they divide:
// the webhook over the fixed webhook, and each compared build over both.
func TestReportRatios(t *testing.T) {
	same := func(name string, d time.Duration) result {
		return result{name: name, latencies: []time.Duration{d, d, d}}
	}
	results := []result{
		same("floor", 2*time.Millisecond), same("MAP", 3*time.Millisecond), same("fixed", 4*time.Millisecond),
		same("webhook", 5*time.Millisecond), same("other", 6*time.Millisecond),
	}
	var out strings.Builder
	calls := callFigure{means: map[string]time.Duration{"fixed": 1900 * time.Microsecond, "webhook": 2650 * time.Microsecond}}
	report(&out, results, builds{{name: "other"}}, serverSideFigure{err: errors.New("none")}, calls)
	for _, want := range []string{
		"webhook / fixed: p50 1.25x, mean 1.25x (goal: p50 <= 1.03x)",
		"fixed / MAP:     p50 1.33x",
		"over the fixed webhook: p50 1.00ms",
		"other / webhook: p50 1.20x, mean 1.20x; other / fixed: p50 1.50x",
		"(apiserver_admission_webhook_admission_duration_seconds): fixed 1.90ms, webhook 2.65ms; webhook - fixed 0.75ms",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

func TestBuildsSet(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "webhook")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	var bs builds
	if err := bs.Set("sonic=" + bin); err != nil || len(bs) != 1 || bs[0] != (build{name: "sonic", binary: bin}) {
		t.Fatalf("got %v, %+v", err, bs)
	}
	for _, bad := range []string{"sonic=" + bin, "fixed=" + bin, "Upper=" + bin, "noequals", "x=", "x=" + bin + ".missing", "-x=" + bin} {
		if err := bs.Set(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if len(bs) != 1 {
		t.Errorf("bad flags were added: %+v", bs)
	}
}
