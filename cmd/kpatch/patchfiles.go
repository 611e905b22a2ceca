package main

import (
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

// patchFile is one file of a run, in the order given: a compiled patch
// file (.kpatch or YAML patch file) or a replacements file, whose
// replacements run over every object of the input at once.
type patchFile struct {
	patch  *kpatch.Patch
	repl   *replacement.Replacements
	failed string // the name of a file that did not compile (relate)
	// disabled says why a patch file whose enabled: metadata is false
	// does not apply (kpatch.Patch.DisabledReason); "" when it applies.
	disabled string
	// order is where a patch file applies (order.go).
	order kpatch.OrderKey
}

// name returns the file's name, as messages give it.
func (f patchFile) name() string {
	switch {
	case f.patch != nil:
		return f.patch.Name()
	case f.repl != nil:
		return f.repl.Name()
	}
	return f.failed
}

// patchFiles are the files of a run, in the order they apply.
type patchFiles []patchFile

// enabled returns the files that are not disabled, in order.
func (fs patchFiles) enabled() patchFiles {
	out := make(patchFiles, 0, len(fs))
	for _, f := range fs {
		if f.disabled == "" {
			out = append(out, f)
		}
	}
	return out
}

// patches returns the compiled patch files that are enabled, in order:
// what conflicts and unmatched targets are about.
func (fs patchFiles) patches() []*kpatch.Patch {
	var out []*kpatch.Patch
	for _, f := range fs {
		if f.patch != nil && f.disabled == "" {
			out = append(out, f.patch)
		}
	}
	return out
}

// loadPatches parses and compiles every file ("-" is standard input, a
// .kpatch file) and binds it to vars; a YAML file whose only key is
// replacements is a replacements file. Every problem of a file goes to
// found; the files that compiled are returned. An error is a file that
// could not be read.
func loadPatches(files []string, src fileSource, vars *kpatch.Variables, found *findings) (patchFiles, error) {
	var out patchFiles
	for _, path := range files {
		name, data, err := src.read(path)
		if err != nil {
			return nil, err
		}
		if kpatch.IsYAMLFile(name) && replacement.IsReplacementsFile(data) {
			r, err := replacement.Parse(name, data)
			if err != nil {
				found.error(err)
				continue
			}
			out = append(out, patchFile{repl: r})
			continue
		}
		p, err := kpatch.ParseAndCompile(name, data)
		if err != nil {
			found.error(err)
			continue
		}
		out = append(out, patchFile{patch: p.WithVariables(vars)})
	}
	return out, nil
}

// apply runs the files over the objects of m, in order: consecutive
// patch files on each object in turn, each replacements file over all
// objects at once (the items of Lists among them). Every failure goes to
// found; a file that fails on an object leaves it untouched, a
// replacements file that fails leaves every object untouched.
func (fs patchFiles) apply(m *manifests, opts kpatch.ApplyOptions, found *findings) {
	var run []*kpatch.Patch
	flush := func() {
		if len(run) == 0 {
			return
		}
		for _, d := range m.docs {
			if err := d.apply(run, opts); err != nil {
				found.error(err)
			}
		}
		run = nil
	}
	for _, f := range fs {
		if f.patch != nil {
			run = append(run, f.patch)
			continue
		}
		flush()
		if err := replaceObjects(f.repl, m.docs); err != nil {
			found.error(err)
		}
	}
	flush()
}
