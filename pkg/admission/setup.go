package admission

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// NewLastGoodStoreFor returns the store of the ConfigMap namespace/name
// for mgr: read from a cache that holds that ConfigMap alone (the
// manager's cache holds the registry's), which it adds to mgr, and written
// with mgr's client.
func NewLastGoodStoreFor(mgr manager.Manager, namespace, name string) (*LastGoodStore, error) {
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient: mgr.GetHTTPClient(),
		Scheme:     mgr.GetScheme(),
		Mapper:     mgr.GetRESTMapper(),
		ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {
			Namespaces: map[string]cache.Config{namespace: {}},
			Field:      fields.OneTermEqualSelector("metadata.name", name),
		}},
	})
	if err != nil {
		return nil, err
	}
	// in the manager's group of caches: started, and synced, before any
	// controller, on every replica, leader or not
	if err := mgr.Add(runnableCache{c}); err != nil {
		return nil, err
	}
	return &LastGoodStore{Reader: c, Live: mgr.GetAPIReader(), Writer: mgr.GetClient(), Namespace: namespace, Name: name,
		Log: ctrl.Log.WithName("last-good"), cache: c}, nil
}

// runnableCache is a cache the manager starts and waits for with its own
// (a cache.Cache of several namespaces or objects is not a
// LeaderElectionRunnable, and would otherwise wait for the election).
type runnableCache struct{ cache.Cache }

func (c runnableCache) GetCache() cache.Cache { return c.Cache }

// Reconcile syncs the registry; every event maps to it.
func (w *Watcher) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	return reconcile.Result{}, w.Sync(ctx)
}

var _ reconcile.Reconciler = (*Watcher)(nil)

// SetupWithManager registers the watcher on every replica, leader or not:
// a controller that syncs on every change of a registry ConfigMap or of
// the last good store, once at start (an empty registry has no events) and
// once more when this process is elected leader, so that it writes the
// store and reports; and the readiness check.
func (w *Watcher) SetupWithManager(mgr manager.Manager) error {
	if w.Elected == nil && w.Leading == nil {
		w.Elected = mgr.Elected()
	}
	events := make(chan event.GenericEvent)
	w.requests = events
	// every event asks for the same sync: the queue folds them together
	one := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: "registry"}}}
	})
	inRegistry := predicate.NewPredicateFuncs(w.inRegistry)
	b := ctrl.NewControllerManagedBy(mgr).
		Named("kpatch-registry").
		Watches(&corev1.ConfigMap{}, one, builder.WithPredicates(inRegistry)).
		WatchesRawSource(source.Channel(events, one)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1, NeedLeaderElection: ptr.To(false)})
	if w.Store != nil && w.Store.cache != nil {
		b = b.WatchesRawSource(source.Kind(w.Store.cache, client.Object(&corev1.ConfigMap{}), one))
	}
	if err := b.Complete(w); err != nil {
		return err
	}
	for _, leader := range []bool{false, true} {
		if err := mgr.Add(&syncTrigger{events: events, leader: leader}); err != nil {
			return err
		}
	}
	return mgr.AddReadyzCheck("registry", w.Ready)
}

// RequestSync asks the controller of SetupWithManager for one sync, as
// at election (Leading turned true), and returns once it is queued or ctx
// ends.
func (w *Watcher) RequestSync(ctx context.Context) {
	if w.requests == nil {
		return
	}
	select {
	case w.requests <- event.GenericEvent{Object: &corev1.ConfigMap{}}:
	case <-ctx.Done():
	}
}

// syncTrigger asks for one sync when it starts: at start, or, with
// leader, when the process is elected.
type syncTrigger struct {
	events chan<- event.GenericEvent
	leader bool
}

func (t *syncTrigger) NeedLeaderElection() bool { return t.leader }

func (t *syncTrigger) Start(ctx context.Context) error {
	select {
	case t.events <- event.GenericEvent{Object: &corev1.ConfigMap{}}:
	case <-ctx.Done():
	}
	<-ctx.Done()
	return nil
}
