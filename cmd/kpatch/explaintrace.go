package main

import (
	"context"
	"errors"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// The results of one file on one object, as kpatch explain reports them.
const (
	resultPatched   = apply.Patched   // the file changed the object
	resultUnchanged = apply.Unchanged // the file matched the object and changed nothing
	resultFailed    = apply.Failed    // the file failed on the object and left it as it was
	resultUnmatched = apply.Unmatched // no section's target matches the object
	resultDisabled  = apply.Disabled  // the file's enabled: metadata is false
)

// tracer follows the objects of the input through the files: it runs the
// apply loop as apply does (patchFiles.run) and observes what each file
// did to each object.
type tracer struct {
	opts    kpatch.ApplyOptions
	docs    []*document
	reports []*objectReport
}

// newTracer follows the objects of the documents: each object, or each
// item of a List, in input order.
func newTracer(docs []*document, opts kpatch.ApplyOptions) *tracer {
	return &tracer{opts: opts, docs: docs}
}

// trace runs every file in order and returns the reports of the objects.
// A disabled file is reported on every object, as applying to none.
func (t *tracer) trace(files patchFiles) []*objectReport {
	orders := make(map[apply.File]fileOrder, len(files))
	versions := make(map[apply.File]string, len(files))
	loop := make([]apply.File, 0, len(files))
	for i, f := range files {
		lf := f.file()
		if lf == nil {
			continue
		}
		ord := fileOrder{file: f.name(), position: i + 1, key: &files[i].order}
		if f.patch != nil {
			ord.description = f.patch.Metadata().Description
		}
		orders[lf] = ord
		versions[lf] = f.version
		loop = append(loop, lf)
	}
	var objs []map[string]any
	for _, d := range t.docs {
		objs = append(objs, d.items()...)
	}
	for _, obj := range objs {
		t.reports = append(t.reports, newObjectReport(kpatch.RefOf(obj, t.opts.Namespace)))
	}
	opts := &apply.Options{ApplyOptions: t.opts, Stream: true, Observer: apply.ObserverFunc(func(i int, r apply.FileRun, before, after map[string]any) {
		t.record(t.reports[i], orders[r.File], r, before, after)
	})}
	runs, _ := apply.Run(context.Background(), objs, loop, opts) // never cancelled
	for i, r := range runs {
		missingRequired(t.reports[i], r)
		if !kpatch.SameJSON(r.In, r.Out) {
			t.reports[i].Applied = fileList(r.Applied(), versions)
		}
		t.reports[i].WouldApply = fileList(r.WouldApply(), versions)
	}
	return t.reports
}

// fileList names the files of runs as the webhook's audit annotations do:
// name@version.
func fileList(runs []apply.FileRun, versions map[apply.File]string) []string {
	var out []string
	for _, r := range runs {
		name := r.File.Name()
		if v := versions[r.File]; v != "" {
			name += "@" + v
		}
		out = append(out, name)
	}
	return out
}

// record reports what a file did to the object, before and after it.
func (t *tracer) record(o *objectReport, ord fileOrder, r apply.FileRun, before, after map[string]any) {
	switch r.Result {
	case apply.Unmatched:
		o.add(ord.report(resultUnmatched))
		return
	case apply.Disabled:
		rep := ord.report(resultDisabled)
		rep.Reason = r.Err.Error()
		o.add(rep)
		return
	case apply.Failed:
		rep := ord.report(resultFailed)
		for _, e := range errorsOf(r.Err) {
			rep.Errors = append(rep.Errors, e.Error())
		}
		o.add(rep)
		return
	}
	rep := ord.report(resultUnchanged)
	changes, err := diffObjects(r.Ref.String(), before, after, nil)
	if err != nil {
		rep.Errors = append(rep.Errors, err.Error())
	}
	if len(changes) > 0 || err != nil {
		rep.Result = resultPatched
		if r.Result == apply.WouldPatch {
			rep.Result = apply.WouldPatch
		}
		rep.Changes = fieldChanges(changes, before, after)
	}
	o.add(rep)
}

// missingRequired reports the fields that the patch files that applied to
// the object mark ${required} and that the object, once every file has
// applied, does not hold (kpatch.Patch.MissingFields), as apply reports
// them.
func missingRequired(o *objectReport, run *apply.ObjectRun) {
	for _, fr := range run.Files {
		pf, ok := fr.File.(apply.PatchFile)
		if !ok || fr.Result == apply.Failed || fr.Err != nil {
			continue
		}
		for _, f := range pf.Patch.MissingFields(run.Out, fr.Ref) {
			o.MissingRequired = append(o.MissingRequired, &missingField{
				Path: f.Path, File: f.Pos.File, Line: f.Pos.Line, Column: f.Pos.Column})
		}
	}
}

// errorsOf returns the errors of an ErrorList one by one, or err alone.
func errorsOf(err error) []error {
	if err == nil {
		return nil
	}
	var list kpatch.ErrorList
	if errors.As(err, &list) {
		return list
	}
	return []error{err}
}
