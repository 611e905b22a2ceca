package informed

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"kpatch.dev/kpatch/pkg/registry"
)

// NamespaceView is one version of a Namespace as the files of a request
// read it: the Namespace, its annotations values.kpatch.dev/NAME parsed
// and sorted, and (when a replacements file first reads it) the Namespace
// as a decoded object. Immutable once built, and shared by every request
// of the namespace until the Namespace changes: InformedNamespaces builds
// one per version, from its informer's events.
type NamespaceView struct {
	ns *corev1.Namespace
	// values are the annotations values.kpatch.dev/NAME, sorted by key.
	values []registry.Annotation
	// object is the Namespace as a source reads it, converted on first use.
	object func() map[string]any
}

// Namespace is the Namespace; shared, never to be modified.
func (v *NamespaceView) Namespace() *corev1.Namespace { return v.ns }

// Values are the Namespace's annotations values.kpatch.dev/NAME, sorted
// by key.
func (v *NamespaceView) Values() []registry.Annotation { return v.values }

// Object is the Namespace as a replacement's source reads it: a decoded
// object with its apiVersion and kind, converted once per version.
func (v *NamespaceView) Object() map[string]any { return v.object() }

// newNamespaceView returns the view of ns.
func newNamespaceView(ns *corev1.Namespace) *NamespaceView {
	return &NamespaceView{
		ns:     ns,
		values: registry.ValueAnnotations(ns.Annotations),
		object: sync.OnceValue(func() map[string]any { return namespaceObject(ns) }),
	}
}

// namespaceObject is a Namespace as a source reads it: a decoded object
// with its apiVersion and kind (a cache's typed objects have neither).
// The replacements never modify their sources (replacement.ApplyObject):
// one object serves every request.
func namespaceObject(ns *corev1.Namespace) map[string]any {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ns)
	if err != nil { // a typed Namespace always converts
		obj = map[string]any{"metadata": map[string]any{"name": ns.Name}}
	}
	obj["apiVersion"], obj["kind"] = "v1", "Namespace"
	return obj
}

// namespaceViewer is a Namespaces that keeps a view of each Namespace.
type namespaceViewer interface {
	view(name string) (*NamespaceView, bool)
}

// View returns the view of the Namespace named name: the shared one of
// an InformedNamespaces, else one built for this call from nss. False when
// the Namespace is not known (or nss is nil).
func View(nss Namespaces, name string) (*NamespaceView, bool) {
	if nss == nil || name == "" {
		return nil, false
	}
	if v, ok := nss.(namespaceViewer); ok {
		return v.view(name)
	}
	ns, ok := nss.Namespace(name)
	if !ok {
		return nil, false
	}
	return newNamespaceView(ns), true
}
