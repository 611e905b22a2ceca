package registry

import (
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
)

// BindObject is BindForObject with the object's context at hand: files,
// candidates of the registry for the object of oc, each that varies by
// object bound for it, without those disabled for it, and, as failed
// runs, those its values leave out. The caller builds oc when a file of
// files varies by object (VariesByObject).
func (r *Registry) BindObject(files []apply.File, oc *ObjectContext) ([]apply.File, []apply.FileRun) {
	return r.BindForObject(files, func() (*ObjectContext, *kpatch.ObjectRef) { return oc, &oc.ref })
}

// Builtins are the built-ins of the object of oc: its name and namespace,
// and its Namespace's labels and annotations (${object.*},
// ${namespace.*}).
func (oc *ObjectContext) Builtins() parameters.Builtins { return oc.builtins }
