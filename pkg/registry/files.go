package registry

import (
	"path/filepath"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// SourceFile is a patch file given by path, as the CLI reads them (`-p
// FILE`): the other source of a registry, beside its ConfigMaps.
type SourceFile struct {
	// Name is the file's name in messages: its path, or standard
	// input's label.
	Name string
	Data []byte
	// Unnamed says that metadata cannot name the file (standard input).
	Unnamed bool
}

// CompileFiles compiles files given by path into a registry, in the
// order given: each file of the kind Kinds recognises, bound to vars. A
// file's metadata name another by its base name without extension, in
// the group of its directory. The files apply by layer (`#
// kpatch:layer:`), specificity, then the order given, and after the
// files they require. A file that does not compile, or whose metadata
// fail, is in Files with its Err and does not apply; the webhook's
// limits and last good versions do not apply.
//
// With vars nil the values are not known (lint without values): the
// variables are not checked, and a file whose enabled: reads one is
// neither enabled nor disabled.
func CompileFiles(files []SourceFile, vars *kpatch.Variables) *Registry {
	pv := &parsedValues{vars: vars, given: true}
	out := make([]RegistryFile, len(files))
	for i, sf := range files {
		f := &out[i]
		f.Ref, f.Version, f.valuesUnknown = FileRef{Path: sf.Name}, Version(string(sf.Data)), vars == nil
		if !sf.Unnamed {
			f.Ref.ConfigMap, f.Ref.Key = filepath.Base(filepath.Dir(sf.Name)), filepath.Base(sf.Name)
		}
		if c, err := compileFile(&fileSource{ref: f.Ref, src: string(sf.Data), values: pv}); err != nil {
			f.Err = err
		} else {
			f.File, f.Patch, f.params = c.file, c.patch, c.params
		}
		f.Order = orderKey(f, 0, i)
	}
	out = inApplyOrder(out)
	rel, meta := relateFiles(out)
	r := newRegistry(inOrder(out, rel.Order))
	r.meta, r.relations = meta, rel
	return r
}

// StreamFile is the file as a run over a stream of objects takes it (the
// CLI's): File, or, for a disabled file, File reported Disabled on every
// object, with why; nil when no version applies.
func (f *RegistryFile) StreamFile() apply.File {
	if f.File == nil || !f.Disabled {
		return f.File
	}
	_, why, _ := f.File.Enabled()
	return apply.Disabling(f.File, why, true)
}

// Stream returns the files that apply, in the order they apply: what a
// run over a stream of objects (the CLI's) applies. The caller must not
// modify it.
func (r *Registry) Stream() []apply.File { return r.active }

// PatchFiles returns the compiled patches of the patch files that apply,
// in order, and their order keys: what the analyses of patch files read
// (conflicts, targets that match nothing, lint).
func (r *Registry) PatchFiles() ([]*kpatch.Patch, []kpatch.OrderKey) {
	return r.patches, r.keys
}

// Relations are the requires: and conflicts: of the registry's files;
// nil for a registry given its files (NewRegistry).
func (r *Registry) Relations() *kpatch.Relations { return r.relations }
