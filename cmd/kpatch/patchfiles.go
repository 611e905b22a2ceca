package main

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
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
	// version names the file's content (registry.Version), as the
	// webhook's audit annotations name it.
	version string
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
func loadPatches(files []string, src filesource.Source, vars *kpatch.Variables, found *lint.Findings) (patchFiles, error) {
	var out patchFiles
	for _, path := range files {
		name, data, err := src.Read(path)
		if err != nil {
			return nil, err
		}
		if kpatch.IsYAMLFile(name) && replacement.IsReplacementsFile(data) {
			r, err := replacement.Parse(name, data)
			if err != nil {
				found.Add(err)
				continue
			}
			r.SetFieldTypes(kpatch.ReplacementFieldType)
			out = append(out, patchFile{repl: r, version: registry.Version(string(data))})
			continue
		}
		p, err := kpatch.ParseAndCompile(name, data)
		if err != nil {
			found.Add(err)
			continue
		}
		out = append(out, patchFile{patch: p.WithVariables(vars), version: registry.Version(string(data))})
	}
	return out, nil
}

// files are the files as the apply loop takes them, in order: each
// patch file a PatchFile, each replacements file a ReplacementsFile (which
// runs over every object at once, in a Stream), a disabled file disabled
// on every object.
func (fs patchFiles) files() []apply.File {
	out := make([]apply.File, 0, len(fs))
	for _, f := range fs {
		if lf := f.file(); lf != nil {
			out = append(out, lf)
		}
	}
	return out
}

// file is the file as the apply loop takes it; nil for one that did not
// compile.
func (f patchFile) file() apply.File {
	switch {
	case f.repl != nil:
		return &apply.ReplacementsFile{Replacements: f.repl}
	case f.patch == nil:
		return nil
	case f.disabled != "":
		return apply.Disabling(apply.PatchFile{Patch: f.patch}, f.disabled, true)
	}
	return apply.PatchFile{Patch: f.patch}
}

// run applies the files to the objects of the documents through the apply
// loop (apply.Run), as one stream: the objects, and the items of Lists,
// in input order. A replacements file runs over all of them at once. The
// conditions read opts.Admission.Request (nil: a CREATE by an unnamed
// user) and the Namespaces among the objects (admissionOf).
func (fs patchFiles) run(docs []*manifest.Document, opts *apply.Options) ([]map[string]any, []*apply.ObjectRun) {
	var objs []map[string]any
	for _, d := range docs {
		objs = append(objs, d.Items()...)
	}
	opts.Stream = true
	opts.Admission = admissionOf(objs, opts.Admission.Request)
	runs, _ := apply.Run(context.Background(), objs, fs.files(), opts) // never cancelled
	return objs, runs
}

// apply runs the files over the objects of m, in order, and writes the
// results back to the documents. Every failure goes to found, in the
// order the files meet the objects: a run of patch files on each object
// in turn, then a replacements file once. A file that fails on an object
// leaves it untouched, a replacements file that fails leaves every object
// untouched. req is the request conditions read (nil: a CREATE by an
// unnamed user); valid holds the results to what the API server accepts:
// a file whose changes it would refuse is left out of that object. It
// returns what the files did to each object.
func (fs patchFiles) apply(m *manifest.Set, opts kpatch.ApplyOptions, req *admissionv1.AdmissionRequest, valid apply.Validator, found *lint.Findings) []*apply.ObjectRun {
	objs, runs := fs.run(m.Docs, &apply.Options{ApplyOptions: opts, Admission: apply.Admission{Request: req}, Operation: operationOf(req), Valid: valid})
	if len(objs) == 0 {
		// no object to report on: a replacements file's source is missing
		for _, f := range fs {
			if f.repl != nil {
				if _, err := f.repl.Apply(nil); err != nil {
					found.Add(err)
				}
			}
		}
		return runs
	}
	reportFailures(runs, found)
	reportWouldApply(runs, found)
	out := make([]map[string]any, len(runs))
	for i, r := range runs {
		out[i] = r.Out
	}
	for _, d := range m.Docs {
		n := len(d.Items())
		d.SetItems(out[:n])
		out = out[n:]
	}
	return runs
}

// reportFailures reports the failures of the files on the objects:
// between two replacements files, object by object, each object's in file
// order; then the replacements file's failure, once for all objects.
func reportFailures(runs []*apply.ObjectRun, found *lint.Findings) {
	next := make([]int, len(runs)) // each object's next file run
	for {
		var shared *apply.FileRun
		for i, r := range runs {
			for ; next[i] < len(r.Files); next[i]++ {
				fr := &r.Files[next[i]]
				if _, batch := fr.File.(apply.Batch); batch {
					shared = fr
					next[i]++
					break
				}
				switch {
				case fr.Result == apply.Immutable: // left out of an UPDATE: no mistake
				case fr.Result == apply.Failed && fr.Audit:
					found.Warn(fmt.Errorf("%w (audit mode: the file changes nothing)", fr.Err))
				case fr.Result == apply.Failed || fr.Err != nil: // a section's condition that fails
					found.Add(fr.Err)
				}
			}
		}
		if shared == nil {
			return
		}
		if shared.Result == apply.Failed {
			found.Add(shared.Err)
		}
	}
}

// reportWouldApply warns, object by object, of the files in audit mode
// that would have changed it: the webhook names them in its audit
// annotations (would-apply) and changes nothing.
func reportWouldApply(runs []*apply.ObjectRun, found *lint.Findings) {
	for _, r := range runs {
		for _, fr := range r.WouldApply() {
			found.Warn(fmt.Errorf("%s: audit mode: would patch %s; left as it was", fr.File.Name(), fr.Ref))
		}
	}
}
