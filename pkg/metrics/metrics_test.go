package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestSetFilesBoundsTheSeries(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	m.SetFiles([]string{"a/x.kpatch", "a/y.kpatch"})
	if n := testutil.CollectAndCount(m.FileApplications); n != 10 {
		t.Errorf("%d series, want 5 results of 2 files", n)
	}
	for _, r := range []string{"would-patch", "immutable"} {
		if n := testutil.ToFloat64(m.FileApplications.WithLabelValues("a/y.kpatch", r)); n != 0 {
			t.Errorf("%s of a file starts at %v", r, n)
		}
	}
	m.FileApplications.WithLabelValues("a/x.kpatch", "patched").Inc()
	m.SetFiles([]string{"a/x.kpatch", "b/z.kpatch"})
	if n := testutil.CollectAndCount(m.FileApplications); n != 10 {
		t.Errorf("%d series after a file left, want 10", n)
	}
	if n := testutil.ToFloat64(m.FileApplications.WithLabelValues("a/x.kpatch", "patched")); n != 1 {
		t.Errorf("a kept file's counter was reset: %v", n)
	}
	m.SetFiles(nil)
	if n := testutil.CollectAndCount(m.FileApplications); n != 0 {
		t.Errorf("%d series of an empty registry", n)
	}
	(*Metrics)(nil).SetFiles([]string{"a"}) // no metrics: nothing to do
}

// TestSourceRefused: both reasons are exported at zero, and each refusal
// counts under its own.
func TestSourceRefused(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	if n := testutil.CollectAndCount(m.SourceConfigMapsRefused); n != 2 {
		t.Errorf("%d series, want 2", n)
	}
	m.SourceRefused(SourceRefusedSize)
	m.SourceRefused(SourceRefusedSize)
	if c, s := testutil.ToFloat64(m.SourceConfigMapsRefused.WithLabelValues(SourceRefusedCount)), testutil.ToFloat64(m.SourceConfigMapsRefused.WithLabelValues(SourceRefusedSize)); c != 0 || s != 2 {
		t.Errorf("count %v, size %v", c, s)
	}
	(*Metrics)(nil).SourceRefused(SourceRefusedCount) // no metrics: nothing to do
}

func TestPatchEventsDropped(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	if n := testutil.CollectAndCount(m.PatchEventsDropped); n != 2 {
		t.Errorf("%d series, want every reason at zero", n)
	}
	m.PatchEventDropped(EventRateLimited)
	m.PatchEventDropped(EventRateLimited)
	if n := testutil.ToFloat64(m.PatchEventsDropped.WithLabelValues(EventRateLimited)); n != 2 {
		t.Errorf("rate-limited = %v, want 2", n)
	}
	(*Metrics)(nil).PatchEventDropped(EventUnnamed) // no metrics: nothing to do
}
