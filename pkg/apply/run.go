package apply

import (
	"context"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// Options adjust a Run.
type Options struct {
	// ApplyOptions are the engine's: the namespace of objects that have
	// none, the Budget of each file on each object, the maps it makes.
	kpatch.ApplyOptions
	// Sources, if set, gives what a file that reads other objects than
	// the one it applies to (a replacements file) reads beside it. Read
	// once per Run, when a file first needs them.
	Sources Sources
	// Check, if set, is asked about every file that changed an object,
	// with the object before and after it: an error fails the file, which
	// leaves the object as it was. The webhook checks that the file's
	// changes encode as a JSONPatch.
	Check func(f File, before, after map[string]any) error
	// Valid, if set, holds every result to what the API server accepts
	// (Validator): when an object the files left does not pass, the files
	// apply to it again, and each file whose own changes do not pass is
	// left out of it with a *RefusedError. See valid.go.
	Valid Validator
	// Observer, if set, is told what each file did to each object.
	Observer Observer
	// Admission is what the files' conditions read beside the object:
	// the request, the old object, the Namespace, and the cost the
	// conditions of one object may spend together.
	Admission Admission
	// Operation is the admission operation of the objects, CREATE or
	// UPDATE ("" is CREATE, as the CLI has it): a file whose operations
	// do not hold it (Meta.Operations) does not apply, as a file that does
	// not target the objects.
	Operation string
	// Stream says that the objects are one stream, as kustomize build
	// reads its resources: a Batch file applies to all of them at once
	// and reads its sources among them, and the files after it match the
	// objects as it left them. Without Stream, each object is on its own.
	Stream bool
}

// Sources gives the objects that files read beside the one they apply
// to.
type Sources interface {
	// Read returns the sources of an object of namespace, and the
	// fallback ones that a source may select only when it selects nothing
	// among the others. They are shared and never modified.
	Read(namespace string) (sources, fallback []map[string]any)
}

// Observer is told what each file did to each object, with the object
// before and after the file (the same map when the file changed
// nothing; for WouldPatch, what the file in audit mode would have made
// of the object, which the loop does not go on from). The objects are
// the loop's: read them, never modify them.
type Observer interface {
	Observe(object int, run FileRun, before, after map[string]any)
}

// ObserverFunc is a func that is an Observer.
type ObserverFunc func(object int, run FileRun, before, after map[string]any)

// Observe calls f.
func (f ObserverFunc) Observe(object int, run FileRun, before, after map[string]any) {
	f(object, run, before, after)
}

var _ Observer = ObserverFunc(nil)

// FileRun is what one file did to one object.
type FileRun struct {
	File File
	// Result is Patched, Unchanged, Failed, Immutable or, for a file in
	// audit mode, WouldPatch; an Observer is also told Unmatched, Unmet
	// and Disabled.
	Result string
	// Audit says that the file is in audit mode (Auditor): whatever its
	// result, it left the object as it was, and its problems are no
	// problems of the object (Problems, Required leave it out).
	Audit bool
	// Err is why the file failed, why it is disabled, what a file that
	// applied left out, why an Unmatched file does not apply on the run's
	// operation (ErrOtherOperation), or which field an UPDATE may not
	// change an Immutable file changes (*ImmutableError).
	Err error
	// Shared says that the run is a Batch file's on all the objects of a
	// Stream at once: its Err, if any, is the same error on each of them.
	Shared bool
	// Ref is the object as the file matched it.
	Ref *kpatch.ObjectRef
	// Conditions, when set, are what the file's conditions did on the
	// object.
	Conditions *Conditions
}

// applied is the file as it applied to the object.
func (r *FileRun) applied() File {
	if r.Conditions != nil && r.Conditions.Applied != nil {
		return r.Conditions.Applied
	}
	return r.File
}

// ObjectRun is what the files did to one object.
type ObjectRun struct {
	// In is the object as given, Out as the files left it.
	In, Out map[string]any
	// Files are the files that targeted the object, in order.
	Files []FileRun
	// schemas are the engine's schemas of custom resources the files
	// applied with (kpatch.ApplyOptions.Schemas), for Required.
	schemas func(apiVersion, kind string) *kpatch.CustomResourceSchema
}

// Failed returns the files that failed on the object.
func (r *ObjectRun) Failed() []FileRun {
	var out []FileRun
	for _, f := range r.Files {
		if f.Result == Failed {
			out = append(out, f)
		}
	}
	return out
}

// Problems returns the files that failed on the object, and those that
// applied but left something out (Err set): what a caller warns about.
// Files in audit mode are left out: they change nothing, whatever
// befalls them (AuditProblems); so are the files left out of an UPDATE
// for a field it may not change (Immutable), which are no mistake.
func (r *ObjectRun) Problems() []FileRun {
	var out []FileRun
	for _, f := range r.Files {
		if f.Err != nil && !f.Audit && f.Result != Immutable {
			out = append(out, f)
		}
	}
	return out
}

// AuditProblems returns the files in audit mode that failed on the
// object or left something out: what they would have done wrong.
func (r *ObjectRun) AuditProblems() []FileRun {
	var out []FileRun
	for _, f := range r.Files {
		if f.Err != nil && f.Audit && f.Result != Immutable {
			out = append(out, f)
		}
	}
	return out
}

// Applied returns the files that changed the object (Patched), in the
// order they applied.
func (r *ObjectRun) Applied() []FileRun { return r.withResult(Patched) }

// WouldApply returns the files in audit mode that would have changed the
// object (WouldPatch), in order.
func (r *ObjectRun) WouldApply() []FileRun { return r.withResult(WouldPatch) }

func (r *ObjectRun) withResult(result string) []FileRun {
	var out []FileRun
	for _, f := range r.Files {
		if f.Result == result {
			out = append(out, f)
		}
	}
	return out
}

// Required returns the problems the files that applied without a problem
// find in the object once they all applied (File.Required): the fields
// they mark ${required} that nothing set.
func (r *ObjectRun) Required() []error {
	var out []error
	for i := range r.Files {
		f := &r.Files[i]
		if f.Result == Failed || f.Err != nil || f.Audit {
			continue
		}
		out = append(out, f.applied().Required(r.Out, f.Ref, kpatch.ApplyOptions{Schemas: r.schemas})...)
	}
	return out
}

// RunObject applies the files in order to one object: Run of one object.
func RunObject(ctx context.Context, obj map[string]any, files []File, opts *Options) (*ObjectRun, error) {
	if opts.Valid == nil {
		return runObject(ctx, obj, files, opts)
	}
	run, err := runObject(ctx, obj, files, firstPass(opts))
	if err != nil {
		return nil, err
	}
	if opts.Valid.Check(run.In, run.Out) == nil {
		if opts.Observer == nil {
			return run, nil
		}
		return runObject(ctx, obj, files, unchecked(opts))
	}
	return runObject(ctx, obj, files, checked(opts))
}

// runObject is RunObject without Valid.
func runObject(ctx context.Context, obj map[string]any, files []File, opts *Options) (*ObjectRun, error) {
	st := &struct { // one allocation for the run and the object
		run ObjectRun
		obj Object
	}{run: ObjectRun{In: obj, Files: make([]FileRun, 0, len(files)), schemas: opts.Schemas}}
	o := &st.obj
	o.init(ctx, obj, opts, &o.own)
	defer o.close()
	run := &st.run
	o.evalAdminFirst(files, opts)
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if fr, ok := o.apply(f, 0, opts); ok {
			run.Files = append(run.Files, fr)
		}
	}
	run.Out = o.Current()
	return run, nil
}

// Run applies the files in order to the objects, each file to every
// object before the next file: each to the result of the ones before it.
// A file that fails on an object leaves that object as it was. It
// returns what the files did to each object, or ctx's error if ctx ends
// between two files.
func Run(ctx context.Context, objs []map[string]any, files []File, opts *Options) ([]*ObjectRun, error) {
	if opts.Valid == nil {
		return run(ctx, objs, files, opts)
	}
	runs, err := run(ctx, objs, files, firstPass(opts))
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if opts.Valid.Check(r.In, r.Out) != nil {
			return run(ctx, objs, files, checked(opts))
		}
	}
	if opts.Observer == nil {
		return runs, nil
	}
	return run(ctx, objs, files, unchecked(opts))
}

// run is Run without Valid.
func run(ctx context.Context, objs []map[string]any, files []File, opts *Options) ([]*ObjectRun, error) {
	src := &sources{}
	objects := make([]*Object, len(objs))
	runs := make([]*ObjectRun, len(objs))
	for i, obj := range objs {
		objects[i] = new(Object)
		objects[i].init(ctx, obj, opts, src)
		runs[i] = &ObjectRun{In: obj, schemas: opts.Schemas}
		if !opts.Stream { // in a Stream, a Batch file may change what the files target
			objects[i].evalAdminFirst(files, opts)
		}
	}
	defer func() {
		for _, o := range objects {
			o.close()
		}
	}()
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b, ok := f.(Batch); ok && opts.Stream {
			if f.Meta().Operations.Has(opts.Operation) {
				applyBatch(b, objects, runs, opts)
			}
			continue
		}
		for i, o := range objects {
			if fr, ok := o.apply(f, i, opts); ok {
				runs[i].Files = append(runs[i].Files, fr)
			}
		}
	}
	for i, o := range objects {
		runs[i].Out = o.Current()
	}
	return runs, nil
}

// EmptyStream returns the failures of the Batch files among files on a
// Stream without objects (a replacements file whose source is missing),
// which no object's run can report.
func EmptyStream(files []File, opts kpatch.ApplyOptions) []error {
	var errs []error
	for _, f := range files {
		if b, ok := f.(Batch); ok {
			if _, err := b.ApplyAll(nil, opts); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// applyBatch applies a Batch file to all the objects at once; the files
// after it match the objects as it leaves them.
func applyBatch(b Batch, objects []*Object, runs []*ObjectRun, opts *Options) {
	cur := make([]map[string]any, len(objects))
	for i, o := range objects {
		cur[i] = o.Current()
	}
	out, err := b.ApplyAll(cur, opts.ApplyOptions)
	for i, o := range objects {
		fr := FileRun{File: b, Ref: o.ref, Shared: true}
		after := cur[i]
		switch {
		case err != nil:
			fr.Result, fr.Err = Failed, err
		case jsonvalue.Equal(cur[i], out[i]):
			fr.Result = Unchanged
		default:
			fr.Result, after = Patched, out[i]
			if ierr := o.immutable(b, opts.Operation, cur[i], out[i]); ierr != nil {
				fr.Result, fr.Err, after = Immutable, ierr, cur[i]
			} else if opts.Check != nil {
				if cerr := opts.Check(b, cur[i], out[i]); cerr != nil {
					fr.Result, fr.Err, after = Failed, cerr, cur[i]
				}
			}
		}
		o.rematch(after)
		runs[i].Files = append(runs[i].Files, fr)
		if opts.Observer != nil {
			opts.Observer.Observe(i, fr, cur[i], after)
		}
	}
}
