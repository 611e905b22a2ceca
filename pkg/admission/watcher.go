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
	// TenantRegistries makes the ConfigMaps that match Selector in every
	// other namespace tenant registries (tenant.go): the client must be
	// able to list them cluster-wide.
	TenantRegistries bool
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
		w.compiler.RegistryNamespace = w.Namespace
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
// namespace's, and with TenantRegistries every namespace's.
func (w *Watcher) list(ctx context.Context) ([]corev1.ConfigMap, error) {
	var list corev1.ConfigMapList
	opts := []client.ListOption{client.MatchingLabelsSelector{Selector: w.Selector}}
	if !w.TenantRegistries {
		opts = append(opts, client.InNamespace(w.Namespace))
	}
	if err := w.Client.List(ctx, &list, opts...); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list.Items, func(cm corev1.ConfigMap) bool { return w.isStore(&cm) }), nil
}

// inRegistry reports whether o is a registry ConfigMap.
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
