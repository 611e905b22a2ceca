package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestDriftScannedRemovesStaleSeries: a scan sets a series per kind and
// file, and the next scan deletes the series it no longer counts (a file
// removed, its objects reconciled); duration and timestamp are the
// scan's.
func TestDriftScannedRemovesStaleSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	m.RegisterDrift(reg)
	start := time.Unix(1700000000, 500000000)
	m.DriftScanned([]DriftCount{{"Deployment", "mirror.kpatch", 3}, {"Pod", "mirror.kpatch", 7}}, start, 1500*time.Millisecond)
	if n := testutil.CollectAndCount(m.DriftObjects); n != 2 {
		t.Errorf("%d series, want 2", n)
	}
	if v := testutil.ToFloat64(m.DriftObjects.WithLabelValues("Pod", "mirror.kpatch")); v != 7 {
		t.Errorf("Pod mirror.kpatch = %v, want 7", v)
	}
	if d, ts := testutil.ToFloat64(m.DriftScanDuration), testutil.ToFloat64(m.DriftLastScan); d != 1.5 || ts != 1700000000.5 {
		t.Errorf("duration %v, timestamp %v: want 1.5 and 1700000000.5", d, ts)
	}
	m.DriftScanned([]DriftCount{{"Deployment", "mirror.kpatch", 1}}, start.Add(time.Minute), time.Second)
	want := `
# HELP kpatch_drift_objects Objects the file would change now, by kind and file, as the last drift scan found them: objects that carry an older version of the registry, or none.
# TYPE kpatch_drift_objects gauge
kpatch_drift_objects{file="mirror.kpatch",kind="Deployment"} 1
`
	if err := testutil.CollectAndCompare(m.DriftObjects, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	m.DriftScanned(nil, start.Add(2*time.Minute), time.Second)
	if n := testutil.CollectAndCount(m.DriftObjects); n != 0 {
		t.Errorf("%d series after a scan that found nothing", n)
	}
}

// TestReconciled counts by kind and result; before RegisterDrift, and on
// nil Metrics, the drift methods do nothing.
func TestReconciled(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	m.Reconciled("Deployment", ReconcileDone) // not registered: nothing
	m.DriftScanned([]DriftCount{{"Pod", "a", 1}}, time.Now(), time.Second)
	(*Metrics)(nil).Reconciled("Pod", ReconcileFailed)
	m.RegisterDrift(reg)
	m.Reconciled("Deployment", ReconcileDone)
	m.Reconciled("Deployment", ReconcileDone)
	m.Reconciled("Deployment", ReconcileConflict)
	if v := testutil.ToFloat64(m.Reconciles.WithLabelValues("Deployment", ReconcileDone)); v != 2 {
		t.Errorf("reconciled = %v, want 2", v)
	}
	if n := testutil.CollectAndCount(m.Reconciles); n != 2 {
		t.Errorf("%d series, want 2", n)
	}
}
