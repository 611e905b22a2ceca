package admission

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// Watcher keeps the registry current: it lists the registry ConfigMaps
// and reads the last good store whenever either changes, compiles what
// changed, and swaps the new registry in atomically. The leader keeps the
// store current and reports files whose state changed and new conflicts
// as Events on their ConfigMap; every replica logs them and exports the
// metrics.
type Watcher struct {
	Client    client.Reader
	Namespace string
	Selector  labels.Selector
	// TenantRegistries makes the ConfigMaps that match Selector in the
	// other namespaces that the cluster admin marked
	// (informed.TenantLabel) tenant registries (registry/tenant.go), read
	// from Tenants; without Tenants, listed cluster-wide with Client and
	// kept when their Namespace is marked.
	TenantRegistries bool
	Tenants          TenantSource
	// Tenancy is what the tenants are granted: the kinds they patch, and
	// their limits.
	Tenancy registry.Tenancy
	// AfterSync, if set, is called with each registry swapped in.
	AfterSync func(*registry.Registry)
	// Store keeps the last good version of each file in the cluster; nil
	// keeps none, and a refused file does not apply.
	Store *LastGoodStore
	// Limits bound the registry.
	Limits registry.Limits
	// Elected is closed once this process is the leader (a manager's
	// Elected()); nil means it always is. Leading, if set, is asked
	// instead: a lease that is lost and won again.
	Elected  <-chan struct{}
	Leading  func() bool
	Recorder events.EventRecorder
	Metrics  *metrics.Metrics
	Log      logr.Logger

	compiler  registry.Compiler
	current   atomic.Pointer[registry.Registry]
	conflicts atomic.Pointer[registry.ConflictReport]
	syncMu    sync.Mutex
	notStored map[registry.FileRef]bool // reported by the leader already
	requests  chan<- event.GenericEvent // to the controller, once set up
}

// TenantSource gives the registry ConfigMaps of the tenants: of the
// namespaces marked as tenants only (informed.TenantRegistries).
type TenantSource interface {
	TenantConfigMaps(ctx context.Context) ([]corev1.ConfigMap, error)
}

// Current returns the registry in force, nil before the first sync.
func (w *Watcher) Current() *registry.Registry { return w.current.Load() }

// Conflicts returns the conflicts of the registry in force, nil before
// the first sync.
func (w *Watcher) Conflicts() *registry.ConflictReport { return w.conflicts.Load() }

// Ready fails until the first sync has compiled the registry: a readiness
// check.
func (w *Watcher) Ready(*http.Request) error {
	if w.current.Load() == nil {
		return errors.New("the registry has not synced yet")
	}
	return nil
}

// Leads reports whether this process is the leader.
func (w *Watcher) Leads() bool {
	if w.Leading != nil {
		return w.Leading()
	}
	if w.Elected == nil {
		return true
	}
	select {
	case <-w.Elected:
		return true
	default:
		return false
	}
}

// Sync reads the registry ConfigMaps and the last good store, and swaps in
// a registry compiled from them. The leader then writes the store; an
// error writing it is returned after the swap.
func (w *Watcher) Sync(ctx context.Context) error {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	cms, err := w.list(ctx)
	if err != nil {
		return err
	}
	var stored *registry.LastGood
	if w.Store != nil {
		if stored, err = w.Store.Load(ctx); err != nil {
			return err
		}
		if stored, err = w.Store.Vouch(ctx, stored, cms, w.compiler.Compiled); err != nil {
			return err
		}
	}
	w.compiler.Limits = w.Limits
	if w.TenantRegistries {
		w.compiler.RegistryNamespace, w.compiler.Tenancy = w.Namespace, w.Tenancy
	}
	b := w.compiler.Build(cms, stored)
	w.current.Store(b.Registry)
	if w.AfterSync != nil {
		w.AfterSync(b.Registry)
	}
	leader := w.Leads()
	w.reportProblems(b.Problems, leader)
	var saveErr error
	if w.Store != nil && leader {
		var notStored []NotStored
		want := b.LastGood
		if want == nil && w.Store.missing() {
			want = stored // deleted: created again with what it held
		}
		if want != nil {
			notStored, saveErr = w.Store.Save(ctx, want)
		}
		w.reportNotStored(notStored, cms)
	}
	w.analyzeConflicts(b.Registry, leader, cms)
	w.Metrics.RegistrySynced(b.Registry)
	if w.Store != nil {
		w.Metrics.StoreSynced(stored, w.Store.Size())
	}
	w.Log.V(1).Info("registry synced", "configMaps", len(cms), "activeFiles", b.Registry.Active(), "compiled", b.Compiled, "leader", leader)
	return saveErr
}

// list returns the registry ConfigMaps, never the store's: the registry
// namespace's, and with TenantRegistries the marked tenants'.
func (w *Watcher) list(ctx context.Context) ([]corev1.ConfigMap, error) {
	var list corev1.ConfigMapList
	opts := []client.ListOption{client.MatchingLabelsSelector{Selector: w.Selector}}
	if !w.TenantRegistries || w.Tenants != nil {
		opts = append(opts, client.InNamespace(w.Namespace))
	}
	if err := w.Client.List(ctx, &list, opts...); err != nil {
		return nil, err
	}
	items := slices.DeleteFunc(list.Items, func(cm corev1.ConfigMap) bool { return w.isStore(&cm) })
	switch {
	case !w.TenantRegistries:
		return items, nil
	case w.Tenants != nil:
		tenants, err := w.Tenants.TenantConfigMaps(ctx)
		if err != nil {
			return nil, err
		}
		return append(items, tenants...), nil
	}
	return w.markedOnly(ctx, items)
}

// markedOnly keeps, of the ConfigMaps of every namespace, the registry
// namespace's and those of the namespaces marked as tenants.
func (w *Watcher) markedOnly(ctx context.Context, cms []corev1.ConfigMap) ([]corev1.ConfigMap, error) {
	marked := map[string]bool{w.Namespace: true}
	out := cms[:0]
	for _, cm := range cms {
		ok, seen := marked[cm.Namespace]
		if !seen {
			var err error
			if ok, err = w.tenantMarked(ctx, cm.Namespace); err != nil {
				return nil, err
			}
			marked[cm.Namespace] = ok
		}
		if ok {
			out = append(out, cm)
		}
	}
	return out, nil
}

// tenantMarked reports whether the cluster admin marked the namespace as
// a tenant (informed.TenantLabel); a namespace that does not exist is not.
func (w *Watcher) tenantMarked(ctx context.Context, namespace string) (bool, error) {
	var ns corev1.Namespace
	if err := w.Client.Get(ctx, client.ObjectKey{Name: namespace}, &ns); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return informed.IsTenantNamespace(&ns), nil
}

// inRegistry reports whether o is a registry ConfigMap by its namespace
// and labels (a tenant's also needs its Namespace marked: tenantMarked).
func (w *Watcher) inRegistry(o client.Object) bool {
	return (w.TenantRegistries || o.GetNamespace() == w.Namespace) && w.Selector.Matches(labels.Set(o.GetLabels())) && !w.isStore(o)
}

func (w *Watcher) isStore(o client.Object) bool {
	return w.Store != nil && o.GetNamespace() == w.Store.Namespace && o.GetName() == w.Store.Name
}

// analyzeConflicts finds the conflicts of reg, unless its patches are the
// ones of the last analysis, and reports the new ones. It runs after the
// swap: an edit is in force before its conflicts are known.
func (w *Watcher) analyzeConflicts(reg *registry.Registry, leader bool, cms []corev1.ConfigMap) {
	previous := w.conflicts.Load()
	if previous.Covers(reg) {
		return
	}
	start := time.Now()
	report := registry.FindConflicts(reg)
	w.Metrics.ConflictsFound(report, time.Since(start))
	w.conflicts.Store(report)
	w.reportConflicts(report, report.NewSince(previous), leader, cms)
}
