package drift

import (
	"maps"
	"slices"
	"time"

	"kpatch.dev/kpatch/pkg/metrics"
)

// Report is what one scan found: per namespace the objects the registry
// would change now, the counts per kind and file, when it started, how
// long it took and whether it stopped at its bound. A Report does not
// change once Scan returns it; what its methods return are copies, but
// for the slices of a Finding, which are shared and read-only.
type Report struct {
	start     time.Time
	duration  time.Duration
	version   string
	objects   int
	truncated bool
	stale     map[string][]Finding // by namespace, in the order listed
	scanned   map[string]bool      // the namespaces listed
	counts    []metrics.DriftCount // by kind, then file
	errors    []string
	errCount  int
}

// Time is when the scan started.
func (r *Report) Time() time.Time { return r.start }

// Duration is how long the scan took.
func (r *Report) Duration() time.Duration { return r.duration }

// Version is the registry version the scan admitted the objects with
// (Scanner.Version).
func (r *Report) Version() string { return r.version }

// Objects is how many objects the scan admitted.
func (r *Report) Objects() int { return r.objects }

// Truncated reports whether the scan stopped at Scanner.MaxObjects with
// objects left to admit: what it found holds, the rest was not looked at.
func (r *Report) Truncated() bool { return r.truncated }

// Scanned are the namespaces the scan listed, sorted. A truncated scan
// leaves out those it did not reach, whose reports of the scan before
// still stand.
func (r *Report) Scanned() []string { return slices.Sorted(maps.Keys(r.scanned)) }

// Namespaces are the namespaces with stale objects, sorted.
func (r *Report) Namespaces() []string { return slices.Sorted(maps.Keys(r.stale)) }

// Stale are the objects of namespace the registry would change now, by
// kind in the scan's order, then in the order listed (by name).
func (r *Report) Stale(namespace string) []Finding { return slices.Clone(r.stale[namespace]) }

// StaleObjects is how many objects the registry would change now.
func (r *Report) StaleObjects() int {
	n := 0
	for _, s := range r.stale {
		n += len(s)
	}
	return n
}

// Counts are, per kind and file, the objects the file would change now,
// sorted by kind then file: the series of kpatch_drift_objects.
func (r *Report) Counts() []metrics.DriftCount { return slices.Clone(r.counts) }

// Errors are the first errors of the scan (a kind it may not list, an
// object that did not admit), at most maxErrors, and how many there
// were: the scan goes on past each.
func (r *Report) Errors() ([]string, int) { return slices.Clone(r.errors), r.errCount }
