package lint

import (
	"errors"
	"slices"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// ReportRequired records an error for each field that a patch file marks
// ${required} and that one of the objects does not hold once every file
// has applied (a file that failed on the object, already in f, requires
// nothing of it).
func (f *Findings) ReportRequired(patches []*kpatch.Patch, objects []map[string]any, namespace string) {
	if !slices.ContainsFunc(patches, (*kpatch.Patch).Required) {
		return
	}
	failed := f.failedOn()
	for _, obj := range objects {
		ref := kpatch.RefOf(obj, namespace)
		for _, p := range patches {
			if !failed[[2]string{p.Name(), ref.String()}] {
				for _, err := range p.MissingRequired(obj, &ref) {
					f.Add(err)
				}
			}
		}
	}
}

// failedOn is the files that failed on objects, by file and object.
func (f *Findings) failedOn() map[[2]string]bool {
	out := map[[2]string]bool{}
	for _, p := range f.List {
		var ae *kpatch.ApplyError
		if errors.As(p.Err, &ae) {
			out[[2]string{ae.Pos.File, ae.Object}] = true
		}
	}
	return out
}

// ReportUseless records a warning for each field of a target that entries
// set to the value an earlier file gave it, on every one of the objects
// they match (kpatch.OverrideFinder): one warning per field, target and
// value, whatever the number of entries (kpatch.GroupUseless): lint -f.
// opts are those the files apply with (the namespace of objects without
// one, the schemas of custom resources).
func (f *Findings) ReportUseless(patches []*kpatch.Patch, objects []map[string]any, opts kpatch.ApplyOptions) {
	finder := kpatch.OverrideFinder{Options: opts}
	for _, obj := range objects {
		finder.Object(obj, patches)
	}
	for _, g := range kpatch.GroupUseless(finder.Useless()) {
		if len(g.Entries) == 1 {
			f.Warn(&UselessOverride{UselessOverride: g.Entries[0]})
			continue
		}
		f.Warn(&UselessField{UselessField: g})
	}
}

// ReportOverwritten records a warning for each file whose every change to
// the objects is overwritten by later files (kpatch.OverwriteFinder): lint
// -f, the files applied with opts.
func (f *Findings) ReportOverwritten(patches []*kpatch.Patch, objects []map[string]any, opts kpatch.ApplyOptions) {
	finder := kpatch.OverwriteFinder{Options: opts}
	for _, obj := range objects {
		finder.Object(obj, patches)
	}
	for _, o := range finder.Overwritten() {
		f.Warn(&OverwrittenFile{OverwrittenFile: o})
	}
}
