package apply

import (
	"context"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// Object is one object going through the loop: what a File's Apply reads
// and sets.
type Object struct {
	ctx  context.Context
	opts kpatch.ApplyOptions // with Identity: ref
	// ref is the object as the files match it: as it entered the loop,
	// or as the last Batch file left it. A new one is made then: the
	// file runs keep the one they matched.
	ref *kpatch.ObjectRef
	// first is the ref of the object as it entered the loop.
	first kpatch.ObjectRef
	// shared says that the files share the copies they make in seq;
	// otherwise each applies to its own copy of cur, which stays intact.
	shared bool
	seq    kpatch.Sequence
	cur    map[string]any
	src    *sources // the run's
	own    sources  // the run's when it has this object only
	// wouldBe is what the last file in audit mode would have made of
	// the object (WouldPatch), for the Observer.
	wouldBe map[string]any
	// in is the object as it entered the loop: what conditions read.
	in  map[string]any
	adm Admission
	// cond are the variables of conditions, made on first use.
	cond *conditions
	// observed says that an Observer is told the conditions' results.
	observed bool
	// file is what the conditions of the file being applied did, when an
	// Observer reads it or they left sections out.
	file *Conditions
	// owner is the Meta.Owner of the file being applied: whose budget
	// its conditions spend.
	owner string
	// old is the stored object of an UPDATE, read once (oldObject).
	old     map[string]any
	oldRead bool
}

// init starts the object obj of a run with opts, whose sources are src.
func (o *Object) init(ctx context.Context, obj map[string]any, opts *Options, src *sources) {
	o.ctx, o.opts, o.src, o.cur = ctx, opts.ApplyOptions, src, obj
	o.in, o.adm, o.observed = obj, opts.Admission, opts.Observer != nil
	o.first = kpatch.RefOf(obj, opts.Namespace)
	o.ref = &o.first
	o.opts.Identity = o.ref
	o.opts.Expressions = o
	o.opts.EvalItem = o.evalItem
	src.from = opts.Sources
	// a Check, an Observer or the immutable fields of an UPDATE
	// (immutable.go) read the object before and after each file: each
	// file then works on its own copy
	o.shared = opts.Check == nil && opts.Observer == nil && !(opts.Operation == "UPDATE" && hasImmutableFields(obj))
	if o.shared {
		o.seq = kpatch.NewSequence(ctx, obj, o.opts)
	}
}

// rematch goes on from obj, as a Batch file left it: the next files
// match it as it is now.
func (o *Object) rematch(obj map[string]any) {
	ref := kpatch.RefOf(obj, o.opts.Namespace)
	o.ref = &ref
	o.opts.Identity = o.ref
	o.Set(obj)
}

// Context is the context of the run: a file stops when it ends.
func (o *Object) Context() context.Context { return o.ctx }

// Options are the engine's options for the object: its namespace when
// it has none, the budget of one file, the identity files match.
func (o *Object) Options() kpatch.ApplyOptions { return o.opts }

// Ref is the object as the files match it: as it entered the loop (or
// as the last Batch file of a Stream left it), so that a file that
// renames the object leaves the later ones matching the old name.
func (o *Object) Ref() *kpatch.ObjectRef { return o.ref }

// Namespace is the namespace of an object that has none (an admission
// request's).
func (o *Object) Namespace() string { return o.opts.Namespace }

// Current is the object with the files applied so far. Treat it as
// read-only: it shares what no file changed with the input.
func (o *Object) Current() map[string]any {
	if o.shared {
		return o.seq.Object()
	}
	return o.cur
}

// Set goes on from obj, a file's result: the next files apply to it.
func (o *Object) Set(obj map[string]any) {
	if !o.shared {
		o.cur = obj
		return
	}
	o.seq.Close()
	o.seq = kpatch.NewSequence(o.ctx, obj, o.opts)
}

// Sources returns the objects a file reads beside this one
// (Options.Sources), read once per run; tenant leaves the fallback ones
// out.
func (o *Object) Sources(tenant bool) (sources, fallback []map[string]any) {
	s := o.src
	if !s.read && s.from != nil {
		s.sources, s.fallback = s.from.Read(o.opts.Namespace)
	}
	s.read = true
	if tenant {
		return s.sources, nil
	}
	return s.sources, s.fallback
}

func (o *Object) close() { o.seq.Close() }

// apply applies f to the object, the object-th of the run, if it targets
// it on the run's operation, and says what it did; false when f does not
// target the object.
func (o *Object) apply(f File, object int, opts *Options) (FileRun, bool) {
	meta := f.Meta()
	if ops := meta.Operations; !ops.Has(opts.Operation) || !f.Matches(o) {
		if opts.Observer != nil {
			cur := o.Current()
			fr := FileRun{File: f, Result: Unmatched, Ref: o.ref}
			if !ops.Has(opts.Operation) {
				fr.Err = otherOperation(ops, opts.Operation)
			}
			opts.Observer.Observe(object, fr, cur, cur)
		}
		return FileRun{}, false
	}
	before := o.Current()
	o.file, o.owner = nil, meta.Owner
	result, err := f.Apply(o)
	switch result {
	case Patched:
		if ierr := o.immutable(f, opts.Operation, before, o.Current()); ierr != nil {
			o.Set(before)
			result, err = Immutable, ierr
		}
	case WouldPatch:
		if ierr := o.immutable(f, opts.Operation, before, o.wouldBe); ierr != nil {
			o.wouldBe = nil
			result, err = Immutable, ierr
		}
	}
	if result == Patched && opts.Check != nil {
		if cerr := opts.Check(f, before, o.Current()); cerr != nil {
			o.Set(before)
			result, err = Failed, cerr
		}
	}
	fr := FileRun{File: f, Result: result, Err: err, Ref: o.ref, Audit: meta.Audit, Conditions: o.file}
	after := o.Current()
	if result == WouldPatch {
		after, o.wouldBe = o.wouldBe, nil
	}
	if opts.Observer != nil {
		opts.Observer.Observe(object, fr, before, after)
	}
	return fr, result != Unmet
}

// evalAdminFirst evaluates the conditions of the registry admin's files
// that target the object on the run's operation (File.EvalConditions)
// before any file applies: tenants' files, which apply before them,
// cannot delay them, and spend budgets of their own.
func (o *Object) evalAdminFirst(files []File, opts *Options) {
	for _, f := range files {
		if m := f.Meta(); m.Conditional && m.Owner == "" && m.Operations.Has(opts.Operation) && f.Matches(o) {
			o.owner = ""
			f.EvalConditions(o)
		}
	}
}

// sources are the objects the files of a run read beside the objects
// they apply to, read once.
type sources struct {
	from              Sources
	read              bool
	sources, fallback []map[string]any
}
