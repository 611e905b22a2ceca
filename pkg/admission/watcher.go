package admission

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Watcher keeps the registry current: it lists the registry ConfigMaps
// whenever one of them changes, compiles what changed, swaps the new
// registry in atomically, and reports files that stop compiling as Events
// on their ConfigMap, log lines and metrics.
type Watcher struct {
	Client    client.Reader
	Namespace string
	Selector  labels.Selector
	Recorder  events.EventRecorder
	Metrics   *Metrics
	Log       logr.Logger

	compiler Compiler
	current  atomic.Pointer[Registry]
	syncMu   sync.Mutex
}

var _ reconcile.Reconciler = (*Watcher)(nil)

// Current returns the registry in force, nil before the first sync.
func (w *Watcher) Current() *Registry { return w.current.Load() }

// Ready fails until the first sync has compiled the registry: a readiness
// check.
func (w *Watcher) Ready(*http.Request) error {
	if w.current.Load() == nil {
		return errors.New("the registry has not synced yet")
	}
	return nil
}

// Reconcile rebuilds the registry; every ConfigMap event maps to it.
func (w *Watcher) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	return reconcile.Result{}, w.Sync(ctx)
}

// Sync lists the registry ConfigMaps and swaps in a registry compiled from
// them.
func (w *Watcher) Sync(ctx context.Context) error {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	var list corev1.ConfigMapList
	if err := w.Client.List(ctx, &list, client.InNamespace(w.Namespace), client.MatchingLabelsSelector{Selector: w.Selector}); err != nil {
		return err
	}
	now := time.Now()
	reg, problems := w.compiler.Build(list.Items)
	previous := w.current.Swap(reg)
	for _, p := range problems {
		w.report(p)
	}
	w.reportConflicts(previous, reg, list.Items)
	if w.Metrics != nil {
		failing := 0
		var active []string
		for _, f := range reg.files {
			if f.Err != nil {
				failing++
			}
			if f.Patch != nil {
				active = append(active, f.Patch.Name())
			}
		}
		w.Metrics.SetFiles(active)
		w.Metrics.ActiveFiles.Set(float64(reg.Active()))
		w.Metrics.FailingFiles.Set(float64(failing))
		w.Metrics.LastSync.Set(float64(now.Unix()))
		w.Metrics.Conflicts.Set(float64(len(reg.Conflicts())))
	}
	w.Log.V(1).Info("registry synced", "configMaps", len(list.Items), "activeFiles", reg.Active())
	return nil
}

func (w *Watcher) report(p Problem) {
	if p.Err == nil {
		w.Log.Info("registry file compiles again", "file", p.Ref.String())
		if w.Recorder != nil {
			w.Recorder.Eventf(p.ConfigMap, nil, corev1.EventTypeNormal, "PatchCompiled", "Compile", "%s compiles again and applies", p.Ref.Key)
		}
		return
	}
	if w.Metrics != nil {
		w.Metrics.CompileErrors.Inc()
	}
	kept := "it has no earlier version, so it does not apply"
	if p.KeptLastGood {
		kept = "its last good version still applies"
	}
	w.Log.Error(p.Err, "registry file does not compile", "file", p.Ref.String(), "keptLastGood", p.KeptLastGood)
	if w.Recorder != nil {
		w.Recorder.Eventf(p.ConfigMap, nil, corev1.EventTypeWarning, "PatchCompileFailed", "Compile", "%s does not compile; %s: %s", p.Ref.Key, kept, errorSummary(p.Err))
	}
}

// reportConflicts reports each conflict that the previous registry did
// not have, as a log line and a Warning Event on the ConfigMap of the file
// that wins.
func (w *Watcher) reportConflicts(previous, reg *Registry, cms []corev1.ConfigMap) {
	known := map[string]bool{}
	if previous != nil {
		for _, c := range previous.Conflicts() {
			known[c.Error()] = true
		}
	}
	for _, c := range reg.Conflicts() {
		if known[c.Error()] {
			continue
		}
		w.Log.Info("registry files conflict", "conflict", c.Error())
		cmName, key, _ := strings.Cut(c.Later.File, "/")
		for i := range cms {
			if cms[i].Name == cmName && w.Recorder != nil {
				w.Recorder.Eventf(&cms[i], nil, corev1.EventTypeWarning, "PatchConflict", "Compile", "%s conflicts with an earlier file and wins: %s", key, c.Error())
			}
		}
	}
}

// SetupWithManager registers the watcher: a controller that syncs on
// every change of a registry ConfigMap, a first sync once the cache has
// synced, and the readiness check.
func (w *Watcher) SetupWithManager(mgr manager.Manager) error {
	inRegistry := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetNamespace() == w.Namespace && w.Selector.Matches(labels.Set(o.GetLabels()))
	})
	// every event asks for the same rebuild: the queue folds them together
	one := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: "registry"}}}
	})
	err := ctrl.NewControllerManagedBy(mgr).
		Named("kpatch-registry").
		Watches(&corev1.ConfigMap{}, one, builder.WithPredicates(inRegistry)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
		Complete(w)
	if err != nil {
		return err
	}
	err = mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return errors.New("the ConfigMap cache did not sync")
		}
		if err := w.Sync(ctx); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	}))
	if err != nil {
		return err
	}
	return mgr.AddReadyzCheck("registry", w.Ready)
}
