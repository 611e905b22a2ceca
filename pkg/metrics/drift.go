package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Results of the reconcile of one object, the values of the result label
// of kpatch_reconciled_total.
const (
	// ReconcileDone is an object the webhook updated through the API
	// server, so that the admission path applied the files to it.
	ReconcileDone = "reconciled"
	// ReconcileConflict is an object that changed since the scan found
	// it: its own UPDATE passed admission; the next scan looks again.
	ReconcileConflict = "conflict"
	// ReconcileFailed is an object the API server did not update.
	ReconcileFailed = "failed"
)

// DriftCount is how many objects of one kind one file would change now,
// as a drift scan found them: a series of kpatch_drift_objects.
type DriftCount struct {
	Kind, File string
	Objects    int
}

// driftKey is the label values of a series of kpatch_drift_objects.
type driftKey struct{ kind, file string }

// RegisterDrift creates and registers the metrics of the drift scan and
// of reconcile, for a webhook that scans: a webhook that does not shows
// none of them. DriftScanned and Reconciled do nothing before it.
func (m *Metrics) RegisterDrift(reg prometheus.Registerer) {
	m.DriftObjects = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kpatch_drift_objects",
		Help: "Objects the file would change now, by kind and file, as the last drift scan found them: objects that carry an older version of the registry, or none.",
	}, []string{"kind", "file"})
	m.DriftScanDuration = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_drift_scan_duration_seconds",
		Help: "How long the last drift scan took.",
	})
	m.DriftLastScan = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_drift_last_scan_timestamp_seconds",
		Help: "When the last drift scan started, in seconds since the epoch.",
	})
	m.Reconciles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kpatch_reconciled_total",
		Help: "Objects the webhook updated through the API server for files marked reconcile: true, by kind and result: reconciled, conflict (the object changed since the scan), failed.",
	}, []string{"kind", "result"})
	m.driftSeries = map[driftKey]bool{}
	reg.MustRegister(m.DriftObjects, m.DriftScanDuration, m.DriftLastScan, m.Reconciles)
}

// DriftScanned sets the drift metrics from a scan that started at start
// and took duration: a series per kind and file of counts, and the
// series of the scan before that counts leave out are deleted, so that a
// file removed or an object reconciled leaves no stale series.
func (m *Metrics) DriftScanned(counts []DriftCount, start time.Time, duration time.Duration) {
	if m == nil || m.DriftObjects == nil {
		return
	}
	m.driftMu.Lock()
	defer m.driftMu.Unlock()
	seen := make(map[driftKey]bool, len(counts))
	for _, c := range counts {
		k := driftKey{c.Kind, c.File}
		seen[k] = true
		m.DriftObjects.WithLabelValues(c.Kind, c.File).Set(float64(c.Objects))
	}
	for k := range m.driftSeries {
		if !seen[k] {
			m.DriftObjects.DeleteLabelValues(k.kind, k.file)
		}
	}
	m.driftSeries = seen
	m.DriftScanDuration.Set(duration.Seconds())
	m.DriftLastScan.Set(float64(start.UnixNano()) / 1e9)
}

// Reconciled counts the reconcile of one object of kind, by result
// (ReconcileDone, ReconcileConflict, ReconcileFailed).
func (m *Metrics) Reconciled(kind, result string) {
	if m != nil && m.Reconciles != nil {
		m.Reconciles.WithLabelValues(kind, result).Inc()
	}
}
