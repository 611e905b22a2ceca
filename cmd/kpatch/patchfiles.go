package main

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"

	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// runStream applies the registry's files to the objects of the documents
// through the apply loop (apply.Run), as one stream: the objects, and
// the items of Lists, in input order. A replacements file runs over all
// of them at once. The conditions read opts.Admission.Request (nil: a
// CREATE by an unnamed user) and the Namespaces among the objects
// (admissionOf).
func runStream(reg *registry.Registry, docs []*manifest.Document, opts *apply.Options) ([]map[string]any, []*apply.ObjectRun) {
	var objs []map[string]any
	for _, d := range docs {
		objs = append(objs, d.Items()...)
	}
	opts.Stream = true
	opts.Admission = admissionOf(objs, opts.Admission.Request)
	runs, _ := apply.Run(context.Background(), objs, reg.Stream(), opts) // never cancelled
	return objs, runs
}

// applyStream runs the registry's files over the objects of m, in order,
// and writes the results back to the documents. Every failure goes to
// found, in the order the files meet the objects: a run of patch files
// on each object in turn, then a replacements file once. A file that
// fails on an object leaves it untouched, a replacements file that fails
// leaves every object untouched. req is the request conditions read
// (nil: a CREATE by an unnamed user); valid holds the results to what
// the API server accepts: a file whose changes it would refuse is left
// out of that object. It returns what the files did to each object.
func applyStream(reg *registry.Registry, m *manifest.Set, opts kpatch.ApplyOptions, req *admissionv1.AdmissionRequest, valid apply.Validator, found *lint.Findings) []*apply.ObjectRun {
	objs, runs := runStream(reg, m.Docs, &apply.Options{ApplyOptions: opts, Admission: apply.Admission{Request: req}, Operation: operationOf(req), Valid: valid})
	if len(objs) == 0 {
		// no object to report on: a replacements file's source is missing
		for _, err := range apply.EmptyStream(reg.Stream(), opts) {
			found.Add(err)
		}
		return runs
	}
	reportFailures(runs, found)
	reportWouldApply(runs, found)
	setResults(m, runs)
	return runs
}

// setResults writes what the files made of each object back to the
// documents of m: runs are their objects', and their Lists' items', in
// order.
func setResults(m *manifest.Set, runs []*apply.ObjectRun) {
	for _, d := range m.Docs {
		n := len(d.Items())
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = runs[i].Out
		}
		if n > 0 {
			d.SetItems(out)
		}
		runs = runs[n:]
	}
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
				if fr.Shared {
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
