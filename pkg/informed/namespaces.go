package informed

import (
	"context"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Namespaces gives the Namespace of an admitted object: its labels and
// annotations are values and sources of the patch files (per-namespace
// values, the ${namespace.*} built-ins, replacements whose source is the
// Namespace). Implementations read a cache, never the API server per
// request; the Namespace returned is shared and must not be modified.
type Namespaces interface {
	// Namespace returns the Namespace named name, and false when it is not
	// known (not in the cache yet, or deleted).
	Namespace(name string) (*corev1.Namespace, bool)
}

// NamespacesFunc is a func that is a Namespaces.
type NamespacesFunc func(name string) (*corev1.Namespace, bool)

// Namespace calls f.
func (f NamespacesFunc) Namespace(name string) (*corev1.Namespace, bool) { return f(name) }

var (
	_ Namespaces                      = NamespacesFunc(nil)
	_ Namespaces                      = CachedNamespaces{}
	_ Namespaces                      = (*InformedNamespaces)(nil)
	_ toolscache.ResourceEventHandler = (*InformedNamespaces)(nil)
	_ namespaceViewer                 = (*InformedNamespaces)(nil)
)

// CachedNamespaces reads Namespaces from a controller-runtime cache, an
// informer of every Namespace (RBAC: namespaces get, list, watch).
type CachedNamespaces struct {
	Reader client.Reader
}

// Namespace reads the Namespace from the cache.
func (c CachedNamespaces) Namespace(name string) (*corev1.Namespace, bool) {
	if name == "" || c.Reader == nil {
		return nil, false
	}
	var ns corev1.Namespace
	if err := c.Reader.Get(context.Background(), client.ObjectKey{Name: name}, &ns); err != nil {
		return nil, false
	}
	return &ns, true
}

// InformedNamespaces keeps the Namespaces an informer reports (its event
// handler), each version read once: a request finds its Namespace, with
// its annotations values.kpatch.dev/ parsed and, once a replacements file
// has read it, as a decoded object, without a lock, a copy or a
// conversion. It holds one entry per Namespace of the informer, and
// forgets a deleted Namespace.
type InformedNamespaces struct {
	// Missing, if set, is read for a Namespace the informer has not
	// reported (yet): its handler may lag behind its cache.
	Missing Namespaces
	views   sync.Map // name -> *NamespaceView
}

// NewNamespacesFor returns the Namespaces of mgr's cache: kept from its
// informer of every Namespace (RBAC: namespaces list and watch), read
// from the cache until the informer has reported it. The informer starts
// with the manager's caches, which sync before the registry's first
// sync, which readiness waits for.
func NewNamespacesFor(mgr manager.Manager) (*InformedNamespaces, error) {
	informer, err := mgr.GetCache().GetInformer(context.Background(), &corev1.Namespace{})
	if err != nil {
		return nil, err
	}
	n := &InformedNamespaces{Missing: CachedNamespaces{Reader: mgr.GetCache()}}
	if _, err := informer.AddEventHandler(n); err != nil {
		return nil, err
	}
	return n, nil
}

// Namespace returns the Namespace named name.
func (n *InformedNamespaces) Namespace(name string) (*corev1.Namespace, bool) {
	v, ok := n.view(name)
	if !ok {
		return nil, false
	}
	return v.ns, true
}

// Names are the names of the Namespaces the informer reported whose
// labels selector matches (nil: every Namespace), sorted: the namespaces
// opted in (--namespace-selector), which the drift scan lists.
func (n *InformedNamespaces) Names(selector labels.Selector) []string {
	var names []string
	n.views.Range(func(_, v any) bool {
		ns := v.(*NamespaceView).ns
		if selector == nil || selector.Matches(labels.Set(ns.Labels)) {
			names = append(names, ns.Name)
		}
		return true
	})
	slices.Sort(names)
	return names
}

// view returns the view of the Namespace named name.
func (n *InformedNamespaces) view(name string) (*NamespaceView, bool) {
	if v, ok := n.views.Load(name); ok {
		return v.(*NamespaceView), true
	}
	if n.Missing == nil || name == "" {
		return nil, false
	}
	ns, ok := n.Missing.Namespace(name)
	if !ok {
		return nil, false
	}
	return newNamespaceView(ns), true
}

// OnAdd records a Namespace.
func (n *InformedNamespaces) OnAdd(obj any, _ bool) { n.set(obj) }

// OnUpdate records a Namespace's new version.
func (n *InformedNamespaces) OnUpdate(_, obj any) { n.set(obj) }

// OnDelete forgets a Namespace.
func (n *InformedNamespaces) OnDelete(obj any) {
	if ns, ok := deletedNamespace(obj); ok {
		n.views.Delete(ns.Name)
	}
}

// deletedNamespace is the Namespace of an informer's OnDelete, whose
// final state may be unknown.
func deletedNamespace(obj any) (*corev1.Namespace, bool) {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	ns, ok := obj.(*corev1.Namespace)
	return ns, ok
}

func (n *InformedNamespaces) set(obj any) {
	if ns, ok := obj.(*corev1.Namespace); ok {
		n.views.Store(ns.Name, newNamespaceView(ns))
	}
}
