package informed

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// SourceOptions say which source ConfigMaps NewSourceConfigMapsFor keeps.
type SourceOptions struct {
	// Namespace, if set, is the one namespace watched (the registry
	// namespace, all its ConfigMaps kept); else every namespace is
	// watched, and the ConfigMaps kept are those of the namespaces that
	// OptIn selects and of Always.
	Namespace string
	// OptIn selects the namespaces opted in by their labels; nil: every
	// namespace.
	OptIn labels.Selector
	// Always are kept whatever their labels: the registry namespace.
	Always []string
	// Limits bound what each namespace keeps.
	Limits SourceLimits
	// Refused is told of each ConfigMap the limits refuse.
	Refused func(SourceRefusal)
}

// NewSourceConfigMapsFor returns the source ConfigMaps for mgr: kept from
// a watch of the ConfigMaps labelled kpatch.dev/source=true (the API
// server filters them: no other ConfigMap is sent), of every namespace or
// of opts.Namespace alone. The watch feeds a reflector whose store is the
// SourceConfigMaps itself, so that a ConfigMap of a namespace not kept is
// dropped as it arrives, and a ConfigMap kept is held once, decoded (an
// informer would hold every one it is sent, typed, besides). With
// opts.OptIn, the Namespace informer of mgr's cache says which namespaces
// opted in, and a namespace that opts in is listed. It is started with
// mgr's caches, which sync before the registry's first sync, which
// readiness waits for. RBAC: configmaps list and watch, cluster-wide or in
// opts.Namespace.
func NewSourceConfigMapsFor(mgr manager.Manager, opts SourceOptions) (*SourceConfigMaps, error) {
	cs, err := kubernetes.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	selector := labels.SelectorFromSet(labels.Set{SourceLabel: "true"}).String()
	list := func(ctx context.Context, namespace string) ([]*corev1.ConfigMap, error) {
		l, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return nil, fmt.Errorf("listing the source ConfigMaps of namespace %s: %w", namespace, err)
		}
		out := make([]*corev1.ConfigMap, len(l.Items))
		for i := range l.Items {
			out[i] = &l.Items[i]
		}
		return out, nil
	}
	var s *SourceConfigMaps
	r := &sourceReflector{}
	switch {
	case opts.Namespace != "":
		s = NewOptInSourceConfigMaps(labels.Nothing(), list, opts.Limits, opts.Namespace)
	case opts.OptIn == nil:
		s = NewOptInSourceConfigMaps(nil, list, opts.Limits)
	default:
		s = NewOptInSourceConfigMaps(opts.OptIn, list, opts.Limits, opts.Always...)
		informer, err := mgr.GetCache().GetInformer(context.Background(), &corev1.Namespace{})
		if err != nil {
			return nil, err
		}
		reg, err := informer.AddEventHandler(s.NamespaceHandler())
		if err != nil {
			return nil, err
		}
		r.namespaces = reg
	}
	r.s, s.Refused = s, opts.Refused
	lw := toolscache.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", opts.Namespace,
		func(o *metav1.ListOptions) { o.LabelSelector = selector })
	r.reflector = toolscache.NewReflectorWithOptions(lw, &corev1.ConfigMap{}, s, toolscache.ReflectorOptions{Name: "source-configmaps"})
	if err := mgr.Add(r); err != nil {
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

// sourceReflector runs the reflector of the source ConfigMaps and the
// lists of namespaces opting in, in the manager's group of caches (it is
// one: GetCache), which the manager waits for before the registry's first
// sync. The reflector starts once the Namespace informer's handler has
// seen every Namespace, so that its first list finds the opted-in ones
// known.
type sourceReflector struct {
	// cache.Cache gives the methods of a cache; the manager calls
	// WaitForCacheSync only, which sourceReflector has.
	cache.Cache
	s          *SourceConfigMaps
	reflector  *toolscache.Reflector
	namespaces toolscache.ResourceEventHandlerRegistration // nil without opt-in
}

// GetCache makes it one of the manager's caches.
func (r *sourceReflector) GetCache() cache.Cache { return r }

// Start runs until ctx ends.
func (r *sourceReflector) Start(ctx context.Context) error {
	if r.namespaces != nil && !toolscache.WaitForCacheSync(ctx.Done(), r.namespaces.HasSynced) {
		return ctx.Err()
	}
	go r.s.RunLoads(ctx)
	r.reflector.RunWithContext(ctx)
	return nil
}

// WaitForCacheSync waits for the reflector's first list.
func (r *sourceReflector) WaitForCacheSync(ctx context.Context) bool {
	select {
	case <-r.s.Synced():
		return true
	case <-ctx.Done():
		return false
	}
}
