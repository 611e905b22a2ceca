package informed

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// NewSourceConfigMapsFor returns the source ConfigMaps for mgr: kept from
// an informer of the ConfigMaps labelled kpatch.dev/source=true (the API
// server filters them: no other ConfigMap is sent or kept), of every
// namespace or, when namespaces are given, of those alone, in a cache of
// its own (the manager's holds the registry's) that it adds to mgr. RBAC:
// configmaps list and watch, cluster-wide or in those namespaces.
func NewSourceConfigMapsFor(mgr manager.Manager, namespaces ...string) (*SourceConfigMaps, error) {
	byObject := cache.ByObject{
		Label:     labels.SelectorFromSet(labels.Set{SourceLabel: "true"}),
		Transform: StripManagedFields,
	}
	if len(namespaces) > 0 {
		byObject.Namespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			byObject.Namespaces[ns] = cache.Config{}
		}
	}
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient: mgr.GetHTTPClient(),
		Scheme:     mgr.GetScheme(),
		Mapper:     mgr.GetRESTMapper(),
		ByObject:   map[client.Object]cache.ByObject{&corev1.ConfigMap{}: byObject},
	})
	if err != nil {
		return nil, err
	}
	informer, err := c.GetInformer(context.Background(), &corev1.ConfigMap{})
	if err != nil {
		return nil, err
	}
	s := &SourceConfigMaps{}
	if _, err := informer.AddEventHandler(s); err != nil {
		return nil, err
	}
	// in the manager's group of caches: synced before the registry's first
	// sync, which readiness waits for
	if err := mgr.Add(runnableCache{c}); err != nil {
		return nil, err
	}
	return s, nil
}

// StripManagedFields, a cache transform, drops what the webhook never
// reads from a cached object: its managed fields.
func StripManagedFields(obj any) (any, error) {
	if o, ok := obj.(client.Object); ok {
		o.SetManagedFields(nil)
	}
	return obj, nil
}

// runnableCache is a cache the manager starts and waits for with its own
// (a cache of some namespaces is not a LeaderElectionRunnable, and would
// otherwise wait for the election).
type runnableCache struct{ cache.Cache }

func (c runnableCache) GetCache() cache.Cache { return c.Cache }
