package admission

import (
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// bindValues returns the files bound to the values of the object: the
// files whose values depend on it (per-namespace values, built-ins) bound
// for it, without those its values disable, and, as failed runs, those
// that its values leave out (a value that fails, a requirement disabled
// for the object, a conflicting file enabled for it). It allocates only
// when the registry has such files and one targets obj.
func (h *Handler) bindValues(reg *registry.Registry, files []apply.File, req *admission.Request, obj map[string]any) ([]apply.File, []apply.FileRun) {
	if !reg.DependsOnObject() {
		return files, nil
	}
	var (
		oc     *registry.ObjectContext
		out    []apply.File
		failed []apply.FileRun
		ref    kpatch.ObjectRef
	)
	for i, f := range files {
		if !reg.VariesByObject(f) {
			if out != nil {
				out = append(out, f)
			}
			continue
		}
		if oc == nil {
			ref = kpatch.RefOf(obj, req.Namespace)
			oc = h.objectContext(req, obj, &ref)
		}
		bound, err := reg.ForObject(f, oc)
		if bound == f && err == nil && out == nil {
			continue
		}
		if out == nil {
			out = append(make([]apply.File, 0, len(files)), files[:i]...)
		}
		if err != nil {
			matched := ref
			failed = append(failed, apply.FileRun{File: f, Result: apply.Failed, Err: err, Ref: &matched})
			continue
		}
		if bound != nil { // nil: disabled for the object, or not its target
			out = append(out, bound)
		}
	}
	if out == nil {
		return files, failed
	}
	return out, failed
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
