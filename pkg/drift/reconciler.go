package drift

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"kpatch.dev/kpatch/pkg/metrics"
)

// ErrNoVersion is a reconcile of a report without a registry version: the
// annotation it sets would not say what the object was updated for.
var ErrNoVersion = errors.New("the report has no registry version")

// Patcher sends a merge patch of an object to the API server, which runs
// the patched object through admission as an UPDATE. The webhook
// implements it with its client.
type Patcher interface {
	Patch(ctx context.Context, ref ObjectRef, mergePatch []byte) error
}

// Limiter grants one reconcile at a time within a rate: Wait blocks until
// the next may start, or ctx ends.
type Limiter interface {
	Wait(ctx context.Context) error
}

// NewLimiter is the Limiter of perSecond objects per second on average
// (--reconcile-rate), as many at once as one second allows (at least
// one).
func NewLimiter(perSecond float64) Limiter {
	return rate.NewLimiter(rate.Limit(perSecond), max(1, int(math.Ceil(perSecond))))
}

// Reconciled is the reconcile of one object: an Event on it, and
// kpatch_reconciled_total.
type Reconciled struct {
	Finding Finding
	// Result is metrics.ReconcileDone, ReconcileConflict or
	// ReconcileFailed; Err why it did not succeed.
	Result string
	Err    error
}

// Reconciler updates the objects a Report found that files marked
// reconcile would change (Finding.Reconcilable), through the API server:
// a merge patch of the annotation kpatch.dev/reconciled to the report's
// registry version, under the resourceVersion the scan listed, so that
// the change comes from the admission path, with its files, budgets and
// failurePolicy. Each object waits for Limiter; at most one object per
// namespace is in flight at a time. Objects whose files' changes the API
// server would refuse (FileChange.Immutable) are never updated; nor
// those the annotation says were updated for this version already, which
// stay stale (the admission path left them so: failurePolicy, a failing
// file) until the registry changes.
type Reconciler struct {
	Patcher Patcher
	Limiter Limiter
	// Metrics counts each result (kpatch_reconciled_total); may be nil.
	Metrics *metrics.Metrics
	// Done, when set, is told each result, one at a time (the Event).
	Done func(Reconciled)
}

// Reconcile updates the reconcilable objects of r, namespace by namespace
// in turn, and returns once each has its result, or ctx ended (its
// error, once the updates in flight are done).
func (rc *Reconciler) Reconcile(ctx context.Context, r *Report) error {
	if r.version == "" {
		return ErrNoVersion
	}
	queues := map[string][]Finding{}
	for ns, findings := range r.stale {
		for _, f := range findings {
			if f.Reconcilable() && f.Ref.Reconciled != r.version {
				queues[ns] = append(queues[ns], f)
			}
		}
	}
	namespaces := slices.Sorted(maps.Keys(queues))
	done := make(chan Reconciled, len(namespaces)) // one in flight per namespace: never blocks
	inFlight := map[string]bool{}
	finish := func(res Reconciled) {
		delete(inFlight, res.Finding.Ref.Namespace)
		rc.Metrics.Reconciled(res.Finding.Ref.Kind.Kind, res.Result)
		if rc.Done != nil {
			rc.Done(res)
		}
	}
	next := 0 // the namespace to look at first: each in turn
	for {
		ns := ""
		for i := range namespaces {
			cand := namespaces[(next+i)%len(namespaces)]
			if len(queues[cand]) > 0 && !inFlight[cand] {
				ns, next = cand, (next+i+1)%len(namespaces)
				break
			}
		}
		if ns == "" {
			if len(inFlight) == 0 {
				return nil
			}
			finish(<-done)
			continue
		}
		if err := rc.Limiter.Wait(ctx); err != nil {
			for len(inFlight) > 0 {
				finish(<-done)
			}
			return err
		}
		f := queues[ns][0]
		queues[ns] = queues[ns][1:]
		inFlight[ns] = true
		go func() { done <- rc.reconcile(ctx, f, r.version) }()
		for drained := false; !drained; {
			select {
			case res := <-done:
				finish(res)
			default:
				drained = true
			}
		}
	}
}

// reconcile sends the merge patch of one object.
func (rc *Reconciler) reconcile(ctx context.Context, f Finding, version string) Reconciled {
	patch, err := ReconcilePatch(f.Ref, version)
	if err == nil {
		err = rc.Patcher.Patch(ctx, f.Ref, patch)
	}
	switch {
	case err == nil:
		return Reconciled{Finding: f, Result: metrics.ReconcileDone}
	case apierrors.IsConflict(err):
		return Reconciled{Finding: f, Result: metrics.ReconcileConflict, Err: err}
	default:
		return Reconciled{Finding: f, Result: metrics.ReconcileFailed, Err: fmt.Errorf("reconcile %s: %w", f.Ref, err)}
	}
}

// ReconcilePatch is the merge patch of a reconcile of ref for the
// registry version: the annotation kpatch.dev/reconciled set to it, under
// the resourceVersion listed (the API server refuses it with a conflict
// when the object changed since: its own UPDATE passed admission).
func ReconcilePatch(ref ObjectRef, version string) ([]byte, error) {
	meta := map[string]any{"annotations": map[string]string{ReconciledAnnotation: version}}
	if ref.ResourceVersion != "" {
		meta["resourceVersion"] = ref.ResourceVersion
	}
	return json.Marshal(map[string]any{"metadata": meta})
}
