package rules

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/registry"
)

// crdMetadata is what the keeper watches of CustomResourceDefinitions:
// their metadata only (a CRD's schema can be large), enough to know that
// one was created, changed (established) or deleted.
func crdMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	return m
}

// NewRulesKeeperFor returns the keeper of the configuration name for mgr:
// it reads the configuration from a cache that holds it alone (added to
// mgr), the registry from w, the served resources from discovery, and
// writes with mgr's client. SetupWithManager registers it.
func NewRulesKeeperFor(mgr manager.Manager, name string, w *admission.Watcher, ops []admissionregistrationv1.OperationType) (*RulesKeeper, error) {
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
		ByObject: map[client.Object]cache.ByObject{&admissionregistrationv1.MutatingWebhookConfiguration{}: {
			Field: fields.OneTermEqualSelector("metadata.name", name),
		}},
	})
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(runnableCache{c}); err != nil {
		return nil, err
	}
	d, err := discovery.NewDiscoveryClientForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	return &RulesKeeper{
		// a tenant's ConfigMap is in no cache of the manager's: read live,
		// when an Event is due
		Name: name, Reader: c, Writer: mgr.GetClient(), ConfigMaps: mgr.GetAPIReader(),
		RegistryNamespace: w.Namespace, Registry: w.Current,
		Discover:   func(context.Context) ([]ServedResource, error) { return DiscoverResources(d) },
		Operations: ops, Recorder: mgr.GetEventRecorder("kpatch-webhook"), Log: ctrl.Log.WithName("webhook-rules"),
		cache: c,
	}, nil
}

// SetupWithManager registers the keeper as a controller of the leader: it
// resolves the rules at election, after each registry sync of w, when a
// CustomResourceDefinition or the configuration changes, and
// periodically (Reconcile).
func (k *RulesKeeper) SetupWithManager(mgr manager.Manager, w *admission.Watcher) error {
	synced := make(chan event.GenericEvent, 1)
	previous := w.AfterSync
	w.AfterSync = func(r *registry.Registry) {
		if previous != nil {
			previous(r)
		}
		select { // one pending event is enough: a reconcile reads the latest
		case synced <- event.GenericEvent{Object: &admissionregistrationv1.MutatingWebhookConfiguration{}}:
		default:
		}
	}
	one := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: k.Name}}}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("kpatch-webhook-rules").
		WatchesRawSource(source.Channel(synced, one)).
		WatchesRawSource(source.Kind(k.cache, client.Object(&admissionregistrationv1.MutatingWebhookConfiguration{}), one)).
		Watches(crdMetadata(), one).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
		Complete(k)
}

// runnableCache is a cache the manager starts and waits for with its own
// (a cache of one object is not a LeaderElectionRunnable, and would
// otherwise wait for the election).
type runnableCache struct{ cache.Cache }

func (c runnableCache) GetCache() cache.Cache { return c.Cache }
