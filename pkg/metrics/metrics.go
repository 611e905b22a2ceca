package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/registry"
)

// Request results, the values of the result label of
// kpatch_admission_requests_total.
const (
	ResultMutated   = "mutated"
	ResultUnchanged = "unchanged"
	ResultError     = "error"
)

// Scopes of recovered panics, the values of the scope label of
// kpatch_panics_total.
const (
	PanicScopeFile    = "file"    // a patch file's apply: that file fails
	PanicScopeRequest = "request" // outside any file: an internal error
)

// Reasons of internal errors, the values of the reason label of
// kpatch_internal_errors_total.
const (
	ReasonNotSynced = "not-synced" // a request before the first registry sync
	ReasonDecode    = "decode"     // the object does not decode
	ReasonEncode    = "encode"     // the JSONPatch does not encode
	ReasonCanceled  = "canceled"   // the request's context ended: cancelled, or past its deadline
	ReasonPanic     = "panic"      // a panic outside any patch file
)

// ReasonNamespaceMismatch is the reason of an internal error for a review
// whose object names a namespace other than the request's: the API server
// never sends one (it sets the object's namespace from the request's), so
// it was forged or corrupted.
const ReasonNamespaceMismatch = "namespace-mismatch"

// ReasonBudgetSpent is the reason of an internal error for an object on
// which the CEL budget of one owner's conditions (the admin's or a
// tenant's) was spent before a file's conditions were evaluated: denied
// under --on-error=deny or --strict, otherwise admitted with the files
// that applied and a warning naming the file left out.
const ReasonBudgetSpent = "budget-spent"

// Metrics are the webhook's Prometheus metrics. Its methods do nothing on
// a nil *Metrics.
type Metrics struct {
	// ApplyDuration is how long applying the registry to one object took.
	ApplyDuration prometheus.Histogram
	// Requests counts admission requests by result.
	Requests *prometheus.CounterVec
	// ActiveFiles is the number of patch files the registry applies.
	ActiveFiles prometheus.Gauge
	// FailingFiles is the number of files whose current content is
	// refused: it does not compile, or it is beyond a limit (some may
	// still apply their last good version).
	FailingFiles prometheus.Gauge
	// LastGoodFiles is the number of files that apply their stored last
	// good version.
	LastGoodFiles prometheus.Gauge
	// OverLimitFiles is the number of files refused by each limit
	// (LimitFiles, LimitFileSize, LimitCompiledSize).
	OverLimitFiles *prometheus.GaugeVec
	// EstimatedSize is the registry's estimated compiled size in bytes.
	EstimatedSize prometheus.Gauge
	// ConflictAnalysis is how long finding the registry's conflicts took.
	ConflictAnalysis prometheus.Histogram
	// StoreFiles and StoreBytes are the files and the data size of the
	// last good store as last read; NotStoredFiles the files that apply
	// but that the store cannot hold (set by the leader).
	StoreFiles     prometheus.Gauge
	StoreBytes     prometheus.Gauge
	NotStoredFiles prometheus.Gauge
	// CompileErrors counts compile failures of registry files.
	CompileErrors prometheus.Counter
	// LastSync is the time of the last successful registry sync.
	LastSync prometheus.Gauge
	// Conflicts is the number of contested fields: a field of a target
	// that registry files set to different values, each once however many
	// files set it, all of them (a ConflictReport lists the first
	// MaxConflicts).
	Conflicts prometheus.Gauge
	// FileApplications counts, per registry file, the objects it patched,
	// found unchanged or failed on (result: FilePatched, FileUnchanged,
	// FileFailed), left out of an UPDATE (immutable), or, in audit mode,
	// would have patched (would-patch). Its series are those of the
	// registry's files: SetFiles
	// creates them at zero and deletes those of removed files.
	FileApplications *prometheus.CounterVec
	// InternalErrors counts internal errors by reason (ReasonDecode, ...).
	InternalErrors *prometheus.CounterVec
	// Panics counts recovered panics by scope (PanicScopeFile,
	// PanicScopeRequest).
	Panics *prometheus.CounterVec
	// RejectedRequests counts the requests answered before their review
	// was read, by reason (RejectInFlight, RejectNotSynced,
	// RejectPathTokenMissing, ...); they are not in Requests.
	RejectedRequests *prometheus.CounterVec
	// SourceConfigMapsRefused counts the source ConfigMaps the limits of
	// their namespace refused, by reason (SourceRefusedCount,
	// SourceRefusedSize).
	SourceConfigMapsRefused *prometheus.CounterVec
	// PatchEventsDropped counts the Events on patched objects not
	// recorded, by reason (EventRateLimited, EventUnnamed).
	PatchEventsDropped *prometheus.CounterVec
	// LastGoodRefused counts the stored last good versions the trust
	// check refused (registry.ErrLastGoodRefused).
	LastGoodRefused prometheus.Counter
	// RegistryValidations counts the registry edits /validate-registry
	// answered, by result (ValidationAccepted, ...).
	RegistryValidations *prometheus.CounterVec

	// DriftObjects, DriftScanDuration, DriftLastScan and Reconciles are
	// the drift scan's and reconcile's metrics (RegisterDrift): nil
	// until they are registered. The scan's duration is a gauge, the
	// last scan's: scans are minutes apart.
	DriftObjects      *prometheus.GaugeVec
	DriftScanDuration prometheus.Gauge
	DriftLastScan     prometheus.Gauge
	Reconciles        *prometheus.CounterVec

	driftMu     sync.Mutex
	driftSeries map[driftKey]bool // the kpatch_drift_objects series set

	filesMu sync.Mutex
	files   map[string]bool // the file label values in use
}

// NewMetrics creates the metrics and registers them with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{}
	m.newRequestMetrics()
	m.newRegistryMetrics()
	m.newStoreMetrics()
	m.newRejectedMetric()
	m.registerPatchEvents(reg)
	reg.MustRegister(m.ApplyDuration, m.Requests, m.ActiveFiles, m.FailingFiles, m.CompileErrors, m.LastSync, m.Conflicts,
		m.FileApplications, m.InternalErrors, m.Panics, m.LastGoodFiles, m.OverLimitFiles, m.EstimatedSize, m.ConflictAnalysis,
		m.StoreFiles, m.StoreBytes, m.NotStoredFiles)
	reg.MustRegister(m.RejectedRequests)
	m.newSourceMetric()
	m.newValidationMetric()
	m.newLastGoodRefusedMetric()
	reg.MustRegister(m.SourceConfigMapsRefused, m.RegistryValidations, m.LastGoodRefused)
	return m
}

// newRequestMetrics creates the metrics of admission requests, every
// series of a fixed label value at zero.
func (m *Metrics) newRequestMetrics() {
	m.ApplyDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "kpatch_apply_duration_seconds",
		Help: "Time to apply the matching patch files to one admitted object.",
		// 10µs to 10s, classic buckets for every Prometheus; native
		// histogram settings for those that scrape them.
		Buckets:                         prometheus.ExponentialBucketsRange(10e-6, 10, 16),
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  160,
		NativeHistogramMinResetDuration: time.Hour,
	})
	m.Requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kpatch_admission_requests_total",
		Help: "Admission requests by result: mutated, unchanged or error.",
	}, []string{"result"})
	m.FileApplications = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kpatch_file_applications_total",
		Help: "Objects each registry file targeted, by result: patched (changed the object), unchanged (already as the file says), failed (not applied), immutable (left out of an UPDATE: it changes a field an UPDATE may not change) or, for a file in audit mode, would-patch (would have changed the object; left as it was).",
	}, []string{"file", "result"})
	m.InternalErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kpatch_internal_errors_total",
		Help: "Internal errors, answered by --on-error, by reason: not-synced, decode, encode, canceled, panic.",
	}, []string{"reason"})
	m.Panics = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kpatch_panics_total",
		Help: "Recovered panics by scope: file (that file is not applied) or request (an internal error).",
	}, []string{"scope"})
	for _, r := range []string{ResultMutated, ResultUnchanged, ResultError} {
		m.Requests.WithLabelValues(r)
	}
	for _, r := range []string{ReasonNotSynced, ReasonDecode, ReasonEncode, ReasonCanceled, ReasonPanic, ReasonNamespaceMismatch} {
		m.InternalErrors.WithLabelValues(r)
	}
	for _, s := range []string{PanicScopeFile, PanicScopeRequest} {
		m.Panics.WithLabelValues(s)
	}
}

// newRegistryMetrics creates the metrics of the registry's syncs.
func (m *Metrics) newRegistryMetrics() {
	m.ActiveFiles = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_registry_active_files",
		Help: "Patch files the registry applies.",
	})
	m.FailingFiles = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_registry_failing_files",
		Help: "Registry files whose current content is refused: it does not compile, or it is beyond a limit.",
	})
	m.LastGoodFiles = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_registry_last_good_files",
		Help: "Registry files that apply their stored last good version, their current content being refused.",
	})
	m.OverLimitFiles = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kpatch_registry_over_limit_files",
		Help: "Registry files refused by a limit: max-registry-files, max-file-size, max-compiled-size, and one tenant registry's max-tenant-files, max-tenant-compiled-size.",
	}, []string{"limit"})
	for _, l := range []string{registry.LimitFiles, registry.LimitFileSize, registry.LimitCompiledSize, registry.LimitTenantFiles, registry.LimitTenantCompiledSize} {
		m.OverLimitFiles.WithLabelValues(l)
	}
	m.EstimatedSize = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_registry_estimated_compiled_bytes",
		Help: "The registry's estimated compiled size: the source bytes of the versions that apply times 128.",
	})
	m.CompileErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "kpatch_registry_compile_errors_total",
		Help: "Compile failures of registry files.",
	})
	m.LastSync = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_registry_last_sync_timestamp_seconds",
		Help: "Unix time of the last successful registry sync.",
	})
	m.Conflicts = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_registry_conflicts",
		Help: "Fields that two registry files set to different values (the later file wins).",
	})
	m.ConflictAnalysis = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:                            "kpatch_registry_conflict_analysis_seconds",
		Help:                            "Time to find the registry's conflicts, after a sync that changed a file.",
		Buckets:                         prometheus.ExponentialBucketsRange(1e-4, 100, 13),
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  160,
		NativeHistogramMinResetDuration: time.Hour,
	})
}

// newStoreMetrics creates the metrics of the last good store.
func (m *Metrics) newStoreMetrics() {
	m.StoreFiles = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_last_good_store_files",
		Help: "Files whose last good version the store holds, as last read.",
	})
	m.StoreBytes = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_last_good_store_bytes",
		Help: "Size of the last good store's data (keys and values), as last read; a ConfigMap holds 1 MiB.",
	})
	m.NotStoredFiles = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kpatch_last_good_not_stored_files",
		Help: "Files that apply but whose version the last good store cannot hold (set by the leader).",
	})
}

// SetFiles keeps the series of FileApplications to the registry's files:
// every result of every file exists from the first sync on (a file that
// never patches anything shows as a flat zero), and the series of a file
// that left the registry are deleted, so the label's values are bounded by
// the registry.
func (m *Metrics) SetFiles(files []string) {
	if m == nil {
		return
	}
	m.filesMu.Lock()
	defer m.filesMu.Unlock()
	next := make(map[string]bool, len(files))
	for _, f := range files {
		next[f] = true
		if !m.files[f] {
			for _, r := range []string{apply.Patched, apply.Unchanged, apply.Failed, apply.WouldPatch, apply.Immutable} {
				m.FileApplications.WithLabelValues(f, r)
			}
		}
	}
	for f := range m.files {
		if !next[f] {
			m.FileApplications.DeletePartialMatch(prometheus.Labels{"file": f})
		}
	}
	m.files = next
}

// Request counts a request by its result (ResultMutated, ...).
func (m *Metrics) Request(result string) {
	if m != nil {
		m.Requests.WithLabelValues(result).Inc()
	}
}

// Applied records how long the files of one request took to apply.
func (m *Metrics) Applied(d time.Duration) {
	if m != nil {
		m.ApplyDuration.Observe(d.Seconds())
	}
}

// FileRuns counts what each file did to one object.
func (m *Metrics) FileRuns(runs []apply.FileRun) {
	if m != nil {
		for _, f := range runs {
			m.FileApplications.WithLabelValues(f.File.Name(), f.Result).Inc()
		}
	}
}

// InternalError counts an internal error by its reason (ReasonDecode, ...).
func (m *Metrics) InternalError(reason string) {
	if m != nil {
		m.InternalErrors.WithLabelValues(reason).Inc()
	}
}

// Panic counts a recovered panic by its scope (PanicScopeFile, ...).
func (m *Metrics) Panic(scope string) {
	if m != nil {
		m.Panics.WithLabelValues(scope).Inc()
	}
}

// RegistrySynced records the state of a registry just swapped in.
func (m *Metrics) RegistrySynced(reg *registry.Registry) {
	if m == nil {
		return
	}
	failing, lastGood := 0, 0
	over := map[string]int{registry.LimitFiles: 0, registry.LimitFileSize: 0, registry.LimitCompiledSize: 0, registry.LimitTenantFiles: 0, registry.LimitTenantCompiledSize: 0}
	active := make([]string, 0, reg.Active())
	for _, f := range reg.Files() {
		if f.Err != nil {
			failing++
			if l := registry.LimitOf(f.Err); l != "" {
				over[l]++
			}
		}
		if f.LastGood {
			lastGood++
		}
		if f.File != nil {
			active = append(active, f.File.Name())
		}
	}
	m.SetFiles(active)
	m.ActiveFiles.Set(float64(len(active)))
	m.FailingFiles.Set(float64(failing))
	m.LastGoodFiles.Set(float64(lastGood))
	for l, n := range over {
		m.OverLimitFiles.WithLabelValues(l).Set(float64(n))
	}
	m.EstimatedSize.Set(float64(reg.EstimatedSize()))
	m.LastSync.SetToCurrentTime()
}

// StoreSynced records what the last good store holds: the versions of
// stored, in bytes of the store.
func (m *Metrics) StoreSynced(stored *registry.LastGood, bytes int) {
	if m != nil {
		m.StoreFiles.Set(float64(stored.Len()))
		m.StoreBytes.Set(float64(bytes))
	}
}

// ConflictsFound records a conflict analysis: how many conflicts, how
// long it took.
func (m *Metrics) ConflictsFound(r *registry.ConflictReport, took time.Duration) {
	if m != nil {
		m.Conflicts.Set(float64(r.Total))
		m.ConflictAnalysis.Observe(took.Seconds())
	}
}

// CompileError counts a file that stopped compiling.
func (m *Metrics) CompileError() {
	if m != nil {
		m.CompileErrors.Inc()
	}
}

// SetNotStored records how many last good versions the store could not
// hold.
func (m *Metrics) SetNotStored(n int) {
	if m != nil {
		m.NotStoredFiles.Set(float64(n))
	}
}
