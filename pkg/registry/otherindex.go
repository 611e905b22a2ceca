package registry

import (
	"slices"

	"kpatch.dev/kpatch/pkg/apply"
)

// otherIndex holds the files of a registry whose targets are no kpatch
// targets (apply.File.Targets is nil: a replacements file's selects), and
// finds those that may target an admission request from its kind,
// namespace and name, before its object is decoded (File.MayTarget): by
// the kinds they name literally, the others (a select without a kind, or
// whose kind is a regular expression) checked on every request. It is
// immutable once built.
type otherIndex struct {
	byKind  map[string][]apply.File // exact kinds, as kustomize matches them
	anyKind []apply.File
}

// addOther indexes a file whose targets are no kpatch targets.
func (r *Registry) addOther(f apply.File) {
	x := r.others
	if x == nil {
		x = &otherIndex{byKind: map[string][]apply.File{}}
		r.others = x
	}
	kinds, anyKind := f.Kinds()
	for _, k := range kinds {
		x.byKind[k] = append(x.byKind[k], f)
	}
	if anyKind {
		x.anyKind = append(x.anyKind, f)
	}
}

// withOthers merges into own, in registry order, the files of the other
// index that may target an object of kind in namespace named name ("":
// any name).
func (r *Registry) withOthers(own []apply.File, kind, namespace, name string) []apply.File {
	x := r.others
	if x == nil {
		return own
	}
	var found []apply.File
	for _, list := range [][]apply.File{x.byKind[kind], x.anyKind} {
		for _, f := range list {
			if f.MayTarget(kind, namespace, name) && !slices.Contains(found, f) {
				found = append(found, f)
			}
		}
	}
	return r.merged(own, found)
}
