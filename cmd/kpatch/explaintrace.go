package main

import (
	"errors"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

// The results of one file on one object, as kpatch explain reports them.
const (
	resultPatched   = "patched"   // the file changed the object
	resultUnchanged = "unchanged" // the file matched the object and changed nothing
	resultFailed    = "failed"    // the file failed on the object and left it as it was
	resultUnmatched = "unmatched" // no section's target matches the object
	resultDisabled  = "disabled"  // the file's enabled: metadata is false
)

// tracedObject is one object of the input as explain follows it through
// the files: where the current run of patch files started (apply matches
// every file of a run against the object as it was then), and where it
// is now.
type tracedObject struct {
	start   map[string]any // the object at the start of the run
	ref     kpatch.ObjectRef
	runErrs int // the errors of the run's files so far
	cur     map[string]any
	report  *objectReport
	// applied are the patch files that applied to the object without
	// failing, and the object as each matched it: what MissingFields
	// checks once every file has applied.
	applied []matchedPatch
}

// matchedPatch is a patch file that applied to an object matched as ref.
type matchedPatch struct {
	patch *kpatch.Patch
	ref   kpatch.ObjectRef
}

// tracer applies the files of a run one at a time, each to the result of
// the ones before, exactly as apply does, and records what each did to
// each object.
type tracer struct {
	opts    kpatch.ApplyOptions
	objects []*tracedObject
	run     []*kpatch.Patch // the patch files since the last replacements file
}

// newTracer follows the objects of the documents: each object, or each
// item of a List, in input order.
func newTracer(docs []*document, opts kpatch.ApplyOptions) *tracer {
	t := &tracer{opts: opts}
	for _, d := range docs {
		for _, obj := range d.items() {
			ref := kpatch.RefOf(obj, opts.Namespace)
			t.objects = append(t.objects, &tracedObject{start: obj, ref: ref, cur: obj, report: newObjectReport(ref)})
		}
	}
	return t
}

// trace runs every file in order and returns the reports of the objects.
// A disabled file is reported on every object, as applying to none.
func (t *tracer) trace(files patchFiles) []*objectReport {
	for i, f := range files {
		ord := fileOrder{file: f.name(), position: i + 1, key: &f.order}
		switch {
		case f.repl != nil:
			t.replace(f.repl, ord)
		case f.disabled != "":
			ord.description = f.patch.Metadata().Description
			t.disabled(f.disabled, ord)
		default:
			ord.description = f.patch.Metadata().Description
			t.patch(f.patch, ord)
		}
	}
	out := make([]*objectReport, len(t.objects))
	for i, o := range t.objects {
		o.missingRequired()
		out[i] = o.report
	}
	return out
}

// disabled reports a disabled file on every object, with why.
func (t *tracer) disabled(why string, ord fileOrder) {
	for _, o := range t.objects {
		r := ord.report(resultDisabled)
		r.Reason = why
		o.report.add(r)
	}
}

// missingRequired reports the fields that the files that applied to the
// object mark ${required} and that the object, once every file has
// applied, does not hold (kpatch.Patch.MissingFields), as apply reports
// them.
func (o *tracedObject) missingRequired() {
	for _, m := range o.applied {
		for _, f := range m.patch.MissingFields(o.cur, &m.ref) {
			o.report.MissingRequired = append(o.report.MissingRequired, &missingField{
				Path: f.Path, File: f.Pos.File, Line: f.Pos.Line, Column: f.Pos.Column})
		}
	}
}

// patch applies one patch file to every object it matches.
func (t *tracer) patch(p *kpatch.Patch, ord fileOrder) {
	t.run = append(t.run, p)
	for _, o := range t.objects {
		if !p.Targets(&o.ref) {
			o.report.add(ord.report(resultUnmatched))
			continue
		}
		out, errs := t.applyNext(o, p)
		if len(errs) == 0 {
			o.applied = append(o.applied, matchedPatch{p, o.ref})
		}
		o.record(ord, out, errs)
	}
}

// applyNext applies p, the last file of the run, to the object. While the
// object keeps the identity it had at the start of the run, that is p on
// the current object; once a file of the run renamed it, apply still
// matches the rest of the run against the old identity, and so does
// explain, by applying the whole run again from its start.
func (t *tracer) applyNext(o *tracedObject, p *kpatch.Patch) (map[string]any, []error) {
	if kpatch.RefOf(o.cur, t.opts.Namespace) == o.ref {
		out, err := kpatch.Apply(o.cur, []*kpatch.Patch{p}, t.opts)
		return out, errorsOf(err)
	}
	out, err := kpatch.Apply(o.start, t.run, t.opts)
	errs := errorsOf(err)
	return out, errs[min(o.runErrs, len(errs)):]
}

// replace runs a replacements file over all the objects at once; its
// first failure leaves every object as it was. A new run of patch files
// starts after it.
func (t *tracer) replace(r *replacement.Replacements, ord fileOrder) {
	objs := make([]map[string]any, len(t.objects))
	for i, o := range t.objects {
		objs[i] = o.cur
	}
	out, err := r.Apply(objs)
	for i, o := range t.objects {
		if err != nil {
			o.record(ord, o.cur, errorsOf(err))
		} else {
			o.record(ord, out[i], nil)
		}
		o.start, o.ref, o.runErrs = o.cur, kpatch.RefOf(o.cur, t.opts.Namespace), 0
	}
	t.run = nil
}

// record reports what a file that matched the object did to it, and
// moves the object on to its result.
func (o *tracedObject) record(ord fileOrder, out map[string]any, errs []error) {
	o.runErrs += len(errs)
	if len(errs) > 0 {
		r := ord.report(resultFailed)
		for _, e := range errs {
			r.Errors = append(r.Errors, e.Error())
		}
		o.report.add(r)
		return
	}
	r := ord.report(resultUnchanged)
	changes, err := diffObjects(o.ref.String(), o.cur, out, nil)
	if err != nil {
		r.Errors = append(r.Errors, err.Error())
	}
	if len(changes) > 0 || err != nil {
		r.Result = resultPatched
		r.Changes = fieldChanges(changes, o.cur, out)
	}
	o.report.add(r)
	o.cur = out
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
