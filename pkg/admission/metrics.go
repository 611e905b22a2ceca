package admission

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Request results, the values of the result label of
// kpatch_admission_requests_total.
const (
	ResultMutated   = "mutated"
	ResultUnchanged = "unchanged"
	ResultError     = "error"
)

// Metrics are the webhook's Prometheus metrics.
type Metrics struct {
	// ApplyDuration is how long applying the registry to one object took.
	ApplyDuration prometheus.Histogram
	// Requests counts admission requests by result.
	Requests *prometheus.CounterVec
	// ActiveFiles is the number of patch files the registry applies.
	ActiveFiles prometheus.Gauge
	// FailingFiles is the number of files whose current content does not
	// compile (some may still apply their last good version).
	FailingFiles prometheus.Gauge
	// CompileErrors counts compile failures of registry files.
	CompileErrors prometheus.Counter
	// LastSync is the time of the last successful registry sync.
	LastSync prometheus.Gauge
	// Conflicts is the number of fields two registry files set to
	// different values.
	Conflicts prometheus.Gauge
}

// NewMetrics creates the metrics and registers them with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		ApplyDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "kpatch_apply_duration_seconds",
			Help: "Time to apply the matching patch files to one admitted object.",
			// 10µs to 10s, classic buckets for every Prometheus; native
			// histogram settings for those that scrape them.
			Buckets:                         prometheus.ExponentialBucketsRange(10e-6, 10, 16),
			NativeHistogramBucketFactor:     1.1,
			NativeHistogramMaxBucketNumber:  160,
			NativeHistogramMinResetDuration: time.Hour,
		}),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kpatch_admission_requests_total",
			Help: "Admission requests by result: mutated, unchanged or error.",
		}, []string{"result"}),
		ActiveFiles: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kpatch_registry_active_files",
			Help: "Patch files the registry applies.",
		}),
		FailingFiles: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kpatch_registry_failing_files",
			Help: "Registry files whose current content does not compile.",
		}),
		CompileErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kpatch_registry_compile_errors_total",
			Help: "Compile failures of registry files.",
		}),
		LastSync: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kpatch_registry_last_sync_timestamp_seconds",
			Help: "Unix time of the last successful registry sync.",
		}),
		Conflicts: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kpatch_registry_conflicts",
			Help: "Fields that two registry files set to different values (the later file wins).",
		}),
	}
	for _, r := range []string{ResultMutated, ResultUnchanged, ResultError} {
		m.Requests.WithLabelValues(r)
	}
	reg.MustRegister(m.ApplyDuration, m.Requests, m.ActiveFiles, m.FailingFiles, m.CompileErrors, m.LastSync, m.Conflicts)
	return m
}
