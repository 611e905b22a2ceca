package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestSetFilesBoundsTheSeries(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	m.SetFiles([]string{"a/x.kpatch", "a/y.kpatch"})
	if n := testutil.CollectAndCount(m.FileApplications); n != 6 {
		t.Errorf("%d series, want 3 results of 2 files", n)
	}
	m.FileApplications.WithLabelValues("a/x.kpatch", "patched").Inc()
	m.SetFiles([]string{"a/x.kpatch", "b/z.kpatch"})
	if n := testutil.CollectAndCount(m.FileApplications); n != 6 {
		t.Errorf("%d series after a file left, want 6", n)
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
