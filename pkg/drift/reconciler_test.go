package drift

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kpatch.dev/kpatch/pkg/metrics"
)

// countingLimiter grants every Wait and counts them, or fails each with
// err.
type countingLimiter struct {
	mu    sync.Mutex
	waits int
	err   error
}

func (l *countingLimiter) Wait(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waits++
	return l.err
}

func (l *countingLimiter) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waits
}

// patchCall is a patch the test answers.
type patchCall struct {
	ref    ObjectRef
	patch  string
	answer chan error
}

// heldPatcher sends each patch to the test and waits for its answer; it
// records a patch sent without a Wait of the limiter before it, and two
// patches in flight in one namespace.
type heldPatcher struct {
	limiter  *countingLimiter
	calls    chan patchCall
	mu       sync.Mutex
	inFlight map[string]bool
	patches  int
	problems []string
}

func (p *heldPatcher) Patch(ctx context.Context, ref ObjectRef, patch []byte) error {
	p.mu.Lock()
	if p.patches++; p.patches > p.limiter.count() {
		p.problems = append(p.problems, fmt.Sprintf("patch %d of %s after %d waits", p.patches, ref, p.limiter.count()))
	}
	if p.inFlight[ref.Namespace] {
		p.problems = append(p.problems, "two patches in flight in "+ref.Namespace)
	}
	p.inFlight[ref.Namespace] = true
	p.mu.Unlock()
	call := patchCall{ref, string(patch), make(chan error)}
	p.calls <- call
	err := <-call.answer
	p.mu.Lock()
	p.inFlight[ref.Namespace] = false
	p.mu.Unlock()
	return err
}

func finding(ns, name, reconciled string, files ...FileChange) Finding {
	return Finding{Ref: ObjectRef{Kind: deployments, Namespace: ns, Name: name, ResourceVersion: "7", Reconciled: reconciled}, Files: files}
}

// TestReconcile: the reconcilable objects are patched, each after a Wait
// of the limiter and one at a time per namespace, with the annotation of
// the report's version under the listed resourceVersion; an object whose
// file changes an immutable field, one of a file without reconcile, and
// one already reconciled for this version are never patched; each result
// is counted and told.
func TestReconcile(t *testing.T) {
	mirror := FileChange{File: "mirror", Fields: []string{"/spec/template/spec/containers/0/image"}, Reconcile: true}
	r := &Report{version: "v2", stale: map[string][]Finding{
		"a": {finding("a", "a1", "", mirror), finding("a", "a2", "v1", mirror)},
		"b": {finding("b", "b1", "", mirror),
			finding("b", "pod", "", FileChange{File: "limits", Fields: []string{"spec.containers"}, Reconcile: true, Immutable: "spec.containers"}),
			finding("b", "plain", "", FileChange{File: "plain", Fields: []string{"/spec/replicas"}}),
			finding("b", "done", "v2", mirror)},
	}}
	limiter := &countingLimiter{}
	patcher := &heldPatcher{limiter: limiter, calls: make(chan patchCall), inFlight: map[string]bool{}}
	reg := prometheus.NewRegistry()
	m := metrics.NewMetrics(reg)
	m.RegisterDrift(reg)
	var told []string
	rc := &Reconciler{Patcher: patcher, Limiter: limiter, Metrics: m, Done: func(res Reconciled) {
		told = append(told, res.Finding.Ref.Name+":"+res.Result)
	}}
	errc := make(chan error)
	go func() { errc <- rc.Reconcile(context.Background(), r) }()

	a1, b1 := <-patcher.calls, <-patcher.calls // one in flight in each namespace, in either order
	if a1.ref.Namespace == "b" {
		a1, b1 = b1, a1
	}
	if a1.ref.Name != "a1" || b1.ref.Name != "b1" {
		t.Fatalf("patched %s and %s first, want a1 and b1", a1.ref, b1.ref)
	}
	if want := `{"metadata":{"annotations":{"kpatch.dev/reconciled":"v2"},"resourceVersion":"7"}}`; a1.patch != want {
		t.Errorf("patch %s, want %s", a1.patch, want)
	}
	b1.answer <- nil
	a1.answer <- apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "a1", errors.New("changed"))
	a2 := <-patcher.calls // a's next, once a1 is done
	a2.answer <- errTest
	for done := false; !done; {
		select {
		case err := <-errc:
			if err != nil {
				t.Fatal(err)
			}
			done = true
		case c := <-patcher.calls:
			t.Errorf("patched %s, which is not to be reconciled", c.ref)
			c.answer <- nil
		}
	}
	if len(patcher.problems) > 0 {
		t.Errorf("problems: %q", patcher.problems)
	}
	if a2.ref.Name != "a2" || patcher.patches != 3 || limiter.count() != 3 {
		t.Errorf("patched %s last, %d patches, %d waits: want a2, 3 and 3", a2.ref, patcher.patches, limiter.count())
	}
	slices.Sort(told)
	if want := []string{"a1:conflict", "a2:failed", "b1:reconciled"}; !reflect.DeepEqual(told, want) {
		t.Errorf("told %v, want %v", told, want)
	}
	for result, want := range map[string]float64{metrics.ReconcileDone: 1, metrics.ReconcileConflict: 1, metrics.ReconcileFailed: 1} {
		if got := testutil.ToFloat64(m.Reconciles.WithLabelValues("Deployment", result)); got != want {
			t.Errorf("kpatch_reconciled_total{result=%q} = %v, want %v", result, got, want)
		}
	}
}

// TestReconcileStops: a limiter that ends (the context) stops the
// reconcile with its error, before any patch; a report without a
// version is refused.
func TestReconcileStops(t *testing.T) {
	mirror := FileChange{File: "mirror", Fields: []string{"/spec/replicas"}, Reconcile: true}
	r := &Report{version: "v2", stale: map[string][]Finding{"a": {finding("a", "a1", "", mirror)}}}
	limiter := &countingLimiter{err: context.Canceled}
	patcher := &heldPatcher{limiter: limiter, calls: make(chan patchCall), inFlight: map[string]bool{}}
	if err := (&Reconciler{Patcher: patcher, Limiter: limiter}).Reconcile(context.Background(), r); err != context.Canceled || patcher.patches != 0 {
		t.Errorf("error %v, %d patches: want context.Canceled and none", err, patcher.patches)
	}
	r.version = ""
	if err := (&Reconciler{Patcher: patcher, Limiter: limiter}).Reconcile(context.Background(), r); !errors.Is(err, ErrNoVersion) {
		t.Errorf("error %v, want ErrNoVersion", err)
	}
}

// TestNewLimiterBurst: the limiter of a rate grants as many at once as
// one second allows, at least one.
func TestNewLimiterBurst(t *testing.T) {
	for rate, burst := range map[float64]int{0.5: 1, 1: 1, 2.5: 3} {
		if got := NewLimiter(rate).(interface{ Burst() int }).Burst(); got != burst {
			t.Errorf("rate %v: burst %d, want %d", rate, got, burst)
		}
	}
}
