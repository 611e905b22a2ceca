package lint

import "kpatch.dev/kpatch/pkg/kpatch"

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
