package admission

import (
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// bindValues returns the patches bound to the values of the object: the
// files whose values depend on it (per-namespace values, built-ins) bound
// for it, without those its values disable, and, as failed runs, those
// that its values leave out (a value that fails, a requirement disabled
// for the object, a conflicting file enabled for it). It
// allocates only when the registry has such files and one targets obj.
func (h *Handler) bindValues(reg *registry.Registry, patches []*kpatch.Patch, req *admission.Request, obj map[string]any) ([]*kpatch.Patch, []fileRun) {
	if !reg.DependsOnObject() {
		return patches, nil
	}
	var (
		oc     *registry.ObjectContext
		out    []*kpatch.Patch
		failed []fileRun
		ref    kpatch.ObjectRef
	)
	for i, p := range patches {
		if !reg.VariesByObject(p) {
			if out != nil {
				out = append(out, p)
			}
			continue
		}
		if oc == nil {
			ref = kpatch.RefOf(obj, req.Namespace)
			oc = h.objectContext(req, obj, &ref)
		}
		if !p.Targets(&ref) {
			continue // applyFiles skips it too
		}
		bound, err := reg.ForObject(p, oc)
		if bound == p && err == nil && out == nil {
			continue
		}
		if out == nil {
			out = append(make([]*kpatch.Patch, 0, len(patches)), patches[:i]...)
		}
		if err != nil {
			failed = append(failed, fileRun{file: p.Name(), result: FileFailed, err: err})
			continue
		}
		if bound != nil { // nil: disabled for the object
			out = append(out, bound)
		}
	}
	if out == nil {
		return patches, failed
	}
	return out, failed
}

// objectContext finds what the files read about the object: its
// Namespace (from h.Namespaces, with its annotations values.kpatch.dev/
// parsed once per version) and the object's annotations
// values.kpatch.dev/.
func (h *Handler) objectContext(req *admission.Request, obj map[string]any, ref *kpatch.ObjectRef) *registry.ObjectContext {
	if view, ok := h.namespaceView(ref.Namespace); ok {
		return registry.NewObjectContext(req.Kind.Kind, ref, view.ns, view.values, obj)
	}
	return registry.NewObjectContext(req.Kind.Kind, ref, nil, nil, obj)
}
