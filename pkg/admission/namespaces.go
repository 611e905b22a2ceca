package admission

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
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
	_ Namespaces = NamespacesFunc(nil)
	_ Namespaces = CachedNamespaces{}
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
