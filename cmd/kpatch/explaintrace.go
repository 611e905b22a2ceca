package main

import (
	"context"
	"errors"

	admissionv1 "k8s.io/api/admission/v1"

	"kpatch.dev/kpatch/internal/explain"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/diff"
	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/pkg/schema"
)

// The results of one file on one object, as kpatch explain reports them.
const (
	resultPatched   = apply.Patched   // the file changed the object
	resultUnchanged = apply.Unchanged // the file matched the object and changed nothing
	resultFailed    = apply.Failed    // the file failed on the object and left it as it was
	resultUnmatched = apply.Unmatched // no section's target matches the object
	resultDisabled  = apply.Disabled  // the file's enabled: metadata is false
	resultUnmet     = apply.Unmet     // the file's conditions leave it out of the object
	resultImmutable = apply.Immutable // left out of an UPDATE: it changes a field an UPDATE may not change
)

// tracer follows the objects of the input through the files: it runs the
// apply loop as apply does (patchFiles.run) and observes what each file
// did to each object.
type tracer struct {
	opts kpatch.ApplyOptions
	// valid holds the results to their kinds' schemas, custom resources'
	// by the CRDs of --crd.
	valid   *schema.Checker
	req     *admissionv1.AdmissionRequest
	docs    []*manifest.Document
	reports []*explain.ObjectReport
}

// newTracer follows the objects of the documents: each object, or each
// item of a List, in input order.
func newTracer(docs []*manifest.Document, opts kpatch.ApplyOptions, req *admissionv1.AdmissionRequest, valid *schema.Checker) *tracer {
	return &tracer{opts: opts, req: req, docs: docs, valid: valid}
}

// trace runs every file in order and returns the reports of the objects.
// A disabled file is reported on every object, as applying to none.
func (t *tracer) trace(reg *registry.Registry) []*explain.ObjectReport {
	files := reg.InOrder()
	orders := make(map[apply.File]explain.FileOrder, len(files))
	versions := make(map[apply.File]string, len(files))
	loop := make([]apply.File, 0, len(files))
	for i := range files {
		f := &files[i]
		lf := f.StreamFile()
		orders[lf] = explain.FileOrder{File: lf.Name(), Position: i + 1, Key: &f.Order, Description: lf.Meta().Description()}
		versions[lf] = f.Version
		loop = append(loop, lf)
	}
	var objs []map[string]any
	for _, d := range t.docs {
		objs = append(objs, d.Items()...)
	}
	for _, obj := range objs {
		t.reports = append(t.reports, explain.NewObjectReport(kpatch.RefOf(obj, t.opts.Namespace)))
	}
	valid := t.valid
	opts := &apply.Options{ApplyOptions: t.opts, Stream: true, Admission: admissionOf(objs, t.req), Operation: operationOf(t.req), Valid: valid, Observer: apply.ObserverFunc(func(i int, r apply.FileRun, before, after map[string]any) {
		t.record(t.reports[i], orders[r.File], r, before, after)
	})}
	runs, _ := apply.Run(context.Background(), objs, loop, opts) // never cancelled
	for i, r := range runs {
		missingRequired(t.reports[i], r, kpatch.ApplyOptions{Schemas: valid.Schemas()})
		if !jsonvalue.Equal(r.In, r.Out) {
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
func (t *tracer) record(o *explain.ObjectReport, ord explain.FileOrder, r apply.FileRun, before, after map[string]any) {
	switch r.Result {
	case apply.Unmatched:
		rep := ord.Report(resultUnmatched)
		if r.Err != nil { // # kpatch:operations: leaves the operation out
			rep.Reason = r.Err.Error()
		}
		o.Add(rep)
		return
	case apply.Unmet:
		rep := ord.Report(resultUnmet)
		rep.Conditions = conditionsOf(r)
		o.Add(rep)
		return
	case apply.Disabled, apply.Immutable:
		rep := ord.Report(map[string]string{apply.Disabled: resultDisabled, apply.Immutable: resultImmutable}[r.Result])
		rep.Reason = r.Err.Error()
		o.Add(rep)
		return
	case apply.Failed:
		rep := ord.Report(resultFailed)
		rep.Conditions = conditionsOf(r)
		for _, e := range errorsOf(r.Err) {
			rep.Errors = append(rep.Errors, e.Error())
		}
		o.Add(rep)
		return
	}
	rep := ord.Report(resultUnchanged)
	rep.Conditions = conditionsOf(r)
	for _, e := range errorsOf(r.Err) {
		rep.Errors = append(rep.Errors, e.Error()) // a section's condition that fails
	}
	changes, err := diff.Changes(r.Ref.String(), before, after, nil)
	if err != nil {
		rep.Errors = append(rep.Errors, err.Error())
	}
	if len(changes) > 0 || err != nil {
		rep.Result = resultPatched
		if r.Result == apply.WouldPatch {
			rep.Result = apply.WouldPatch
		}
		rep.Changes = explain.FieldChanges(changes, before, after)
	}
	o.Add(rep)
}

// missingRequired reports the fields that the patch files that applied to
// the object mark ${required} and that the object, once every file has
// applied, does not hold (kpatch.Patch.MissingFields), as apply reports
// them.
func missingRequired(o *explain.ObjectReport, run *apply.ObjectRun, opts kpatch.ApplyOptions) {
	for _, fr := range run.Files {
		file := fr.File
		if fr.Conditions != nil && fr.Conditions.Applied != nil {
			file = fr.Conditions.Applied // without the sections its conditions left out
		}
		if fr.Result == apply.Failed || fr.Err != nil {
			continue
		}
		for _, err := range file.Required(run.Out, fr.Ref, opts) {
			if ae := (*kpatch.ApplyError)(nil); errors.As(err, &ae) && ae.Field != "" {
				o.MissingRequired = append(o.MissingRequired, &explain.MissingField{
					Path: ae.Field, File: ae.Pos.File, Line: ae.Pos.Line, Column: ae.Pos.Column})
			}
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

// conditionsOf says what each condition of the file gave on the object.
func conditionsOf(r apply.FileRun) []string {
	if r.Conditions == nil {
		return nil
	}
	out := make([]string, 0, len(r.Conditions.Runs))
	for _, c := range r.Conditions.Runs {
		out = append(out, conditionText(c))
	}
	return out
}
