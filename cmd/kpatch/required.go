package main

import (
	"errors"

	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// reportRequired records an error for each field that a patch file marks
// ${required} and that an object of m does not hold once every file has
// applied (a file that failed on the object, already in found, requires
// nothing of it).
func reportRequired(files patchFiles, m *manifests, namespace string, found *findings) {
	patches := files.patches()
	if !anyRequired(patches) {
		return
	}
	failed := failedOn(found)
	for _, d := range m.docs {
		for _, obj := range d.items() {
			ref := kpatch.RefOf(obj, namespace)
			for _, p := range patches {
				if !failed[[2]string{p.Name(), ref.String()}] {
					for _, err := range p.MissingRequired(obj, &ref) {
						found.error(err)
					}
				}
			}
		}
	}
}

func anyRequired(patches []*kpatch.Patch) bool {
	for _, p := range patches {
		if p.Required() {
			return true
		}
	}
	return false
}

// failedOn is the files that failed on objects, by file and object.
func failedOn(found *findings) map[[2]string]bool {
	out := map[[2]string]bool{}
	for _, f := range found.List {
		var ae *kpatch.ApplyError
		if errors.As(f.Err, &ae) {
			out[[2]string{ae.Pos.File, ae.Object}] = true
		}
	}
	return out
}

// reportUseless records a warning for each entry that sets a field to the
// value an earlier file gave it, on every object of m it matches
// (kpatch.OverrideFinder): lint -f.
func reportUseless(files patchFiles, m *manifests, namespace string, found *findings) {
	f := kpatch.OverrideFinder{Options: kpatch.ApplyOptions{Namespace: namespace}}
	patches := files.patches()
	for _, d := range m.docs {
		for _, obj := range d.items() {
			f.Object(obj, patches)
		}
	}
	for _, u := range f.Useless() {
		found.warn(&lint.UselessOverride{UselessOverride: u})
	}
}
