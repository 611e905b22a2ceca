package metrics

import "github.com/prometheus/client_golang/prometheus"

// Reasons a source ConfigMap is not kept, the values of the reason label
// of kpatch_source_configmaps_refused_total: its namespace keeps as many
// as --max-source-configmaps already (SourceRefusedCount), or the bytes
// of --max-source-size (SourceRefusedSize). The same words as
// informed.RefusedCount and informed.RefusedSize.
const (
	SourceRefusedCount = "count"
	SourceRefusedSize  = "size"
)

// newSourceMetric creates the counter of refused source ConfigMaps, every
// reason at zero.
func (m *Metrics) newSourceMetric() {
	m.SourceConfigMapsRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kpatch_source_configmaps_refused_total",
		Help: "Source ConfigMaps (kpatch.dev/source=true) of an opted-in namespace not kept, each time one is refused, by reason: count (--max-source-configmaps), size (--max-source-size).",
	}, []string{"reason"})
	for _, r := range []string{SourceRefusedCount, SourceRefusedSize} {
		m.SourceConfigMapsRefused.WithLabelValues(r)
	}
}

// SourceRefused counts a source ConfigMap not kept, by reason
// (SourceRefusedCount, SourceRefusedSize).
func (m *Metrics) SourceRefused(reason string) {
	if m != nil {
		m.SourceConfigMapsRefused.WithLabelValues(reason).Inc()
	}
}
