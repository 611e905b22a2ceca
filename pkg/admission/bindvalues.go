package admission

import (
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// bindValues returns the files bound to the values of the object
// (Registry.BindForObject): the files whose values depend on it
// (per-namespace values, built-ins) bound for it, without those its
// values disable, and, as failed runs, those that its values leave out.
// It allocates only when the registry has such files and one targets
// obj.
func (h *Handler) bindValues(reg *registry.Registry, files []apply.File, req *admission.Request, obj map[string]any) ([]apply.File, []apply.FileRun) {
	return reg.BindForObject(files, func() (*registry.ObjectContext, *kpatch.ObjectRef) {
		ref := kpatch.RefOf(obj, req.Namespace)
		return h.objectContext(req, obj, &ref), &ref
	})
}

// objectContext finds what the files read about the object: its
// Namespace (from h.Namespaces, with its annotations values.kpatch.dev/
// parsed once per version) and the object's annotations
// values.kpatch.dev/.
func (h *Handler) objectContext(req *admission.Request, obj map[string]any, ref *kpatch.ObjectRef) *registry.ObjectContext {
	if view, ok := informed.View(h.Namespaces, ref.Namespace); ok {
		return registry.NewObjectContext(req.Kind.Kind, ref, view.Namespace(), view.Values(), obj)
	}
	return registry.NewObjectContext(req.Kind.Kind, ref, nil, nil, obj)
}

// handlerSources are what the replacements files read at admission
// beside the object (apply.Options.Sources).
type handlerSources struct{ h *Handler }

var _ apply.Sources = handlerSources{}

// Read returns the Namespace and the labelled ConfigMaps of namespace,
// then, as fallback, those of the registry namespace, from the handler's
// caches, shared and never modified.
func (s handlerSources) Read(namespace string) (sources, fallback []map[string]any) {
	h := s.h
	if view, ok := informed.View(h.Namespaces, namespace); ok {
		sources = append(sources, view.Object())
	}
	if h.Sources != nil {
		if namespace != "" {
			sources = append(sources, h.Sources.ConfigMaps(namespace)...)
		}
		fallback = h.Sources.ConfigMaps(h.RegistryNamespace)
	}
	return sources, fallback
}
