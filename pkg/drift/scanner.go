package drift

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"kpatch.dev/kpatch/pkg/metrics"
)

// ReconciledAnnotation is the annotation a reconcile sets on an object,
// to the registry version it updated the object for: the merge patch
// that makes the API server run the object through admission.
const ReconciledAnnotation = "kpatch.dev/reconciled"

// Bounds of a scan when the Scanner does not set them.
const (
	// DefaultPageSize is the objects of one list page.
	DefaultPageSize = 500
	// DefaultMaxObjects is the objects one scan admits at most
	// (--drift-max-objects).
	DefaultMaxObjects = 50000
	// maxErrors is the errors a Report keeps; it counts them all.
	maxErrors = 10
)

// Scanner finds the objects the registry would change now: for every
// kind and namespace it is given, it lists the objects page by page and
// admits each; it keeps the stale ones only (Finding), so that its memory
// is a page of objects and the findings, whatever the objects it admits.
// Its cost is one admission per object: linear in objects and files.
type Scanner struct {
	Lister   Lister
	Admitter Admitter
	// Kinds and Namespaces are what it scans, every kind in every
	// namespace: the kinds the registry targets, the namespaces opted in
	// (the caller's to decide).
	Kinds      []Kind
	Namespaces []string
	// Version is the registry version the scan runs with, for the
	// Report (Report.Version).
	Version string
	// PageSize is the limit of each list; DefaultPageSize when 0.
	PageSize int64
	// MaxObjects bounds the objects one scan admits; DefaultMaxObjects
	// when 0 or less. A scan that reaches it stops and says so
	// (Report.Truncated).
	MaxObjects int
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Scan lists and admits the objects and returns what it found. An error
// listing one kind in one namespace, or admitting one object, is in the
// Report (Report.Errors) and the scan goes on with the others; the
// error is the context's, when it ends before the scan does.
func (s *Scanner) Scan(ctx context.Context) (*Report, error) {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	limit := s.MaxObjects
	if limit <= 0 {
		limit = DefaultMaxObjects
	}
	sc := scan{Scanner: s, report: &Report{start: now(), version: s.Version, stale: map[string][]Finding{}, scanned: map[string]bool{}},
		counts: map[metrics.DriftCount]int{}, max: limit}
	for _, k := range s.Kinds {
		for _, ns := range s.Namespaces {
			if err := sc.list(ctx, k, ns); err != nil {
				return nil, err
			}
			if sc.report.truncated {
				return sc.done(now), nil
			}
		}
	}
	return sc.done(now), nil
}

// scan is one Scan under way.
type scan struct {
	*Scanner
	report *Report
	// counts are the objects per kind and file (the Objects of the key
	// are 0).
	counts map[metrics.DriftCount]int
	max    int
}

// list admits the objects of kind k in namespace ns, page by page, until
// the last page or the bound.
func (sc *scan) list(ctx context.Context, k Kind, ns string) error {
	sc.report.scanned[ns] = true
	cont := ""
	for {
		page, err := sc.Lister.List(ctx, k, ns, cmp.Or(sc.PageSize, DefaultPageSize), cont)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			sc.fail(fmt.Errorf("list %s in %q: %w", k.Resource, ns, err))
			return nil
		}
		for _, obj := range page.Objects {
			if sc.report.objects == sc.max {
				sc.report.truncated = true
				return nil
			}
			if err := sc.admit(ctx, k, ns, obj); err != nil {
				return err
			}
		}
		if page.Continue == "" {
			return nil
		}
		cont = page.Continue
	}
}

// admit admits one object and keeps it when the answer would change it.
func (sc *scan) admit(ctx context.Context, k Kind, ns string, obj map[string]any) error {
	sc.report.objects++
	ref := refOf(k, ns, obj)
	adm, err := sc.Admitter.Admit(ctx, k, obj)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		sc.fail(fmt.Errorf("%s: %w", ref, err))
		return nil
	case len(adm.Files) == 0:
		return nil
	}
	sc.report.stale[ref.Namespace] = append(sc.report.stale[ref.Namespace], Finding{Ref: ref, Files: adm.Files})
	for _, f := range adm.Files {
		sc.counts[metrics.DriftCount{Kind: k.Kind, File: f.File}]++
	}
	return nil
}

// fail records an error of the scan.
func (sc *scan) fail(err error) {
	if sc.report.errCount++; len(sc.report.errors) < maxErrors {
		sc.report.errors = append(sc.report.errors, err.Error())
	}
}

// done completes the report.
func (sc *scan) done(now func() time.Time) *Report {
	r := sc.report
	r.duration = now().Sub(r.start)
	r.counts = make([]metrics.DriftCount, 0, len(sc.counts))
	for c, n := range sc.counts {
		c.Objects = n
		r.counts = append(r.counts, c)
	}
	slices.SortFunc(r.counts, func(a, b metrics.DriftCount) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.File, b.File))
	})
	return r
}
