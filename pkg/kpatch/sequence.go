package kpatch

import (
	"context"
	"runtime/debug"
)

// Sequence applies files to one object one at a time, as Apply applies
// its patches in order, and tells for each file whether it changed the
// object. The files share the copies of the object's maps and lists that
// they make: a file changes in place what an earlier file already
// copied, so n files touching one container copy it once, not n times.
// Each file is atomic and has its own budget; a panic while a file
// applies is recovered, the file rolled back and the panic returned as a
// *PanicError. The input object is never modified. A Sequence is not safe
// for concurrent use; Close it when done.
type Sequence struct {
	a    *applier
	ctx  context.Context
	opts ApplyOptions
	// kind is the API version and kind whose schema a.custom is (typed:
	// looked up), so that the files of one object look it up once.
	kind  [2]string
	typed bool
}

// NewSequence starts applying files to obj: the Budget of opts bounds
// each file, ctx all of them (see ApplyContext).
func NewSequence(ctx context.Context, obj map[string]any, opts ApplyOptions) Sequence {
	a := appliers.Get().(*applier)
	a.root, a.makeMap, a.makeList, a.evalItem = obj, opts.NewMap, opts.NewList, opts.EvalItem
	a.ctx, a.input, a.exprs = ctx, obj, opts.Expressions
	return Sequence{a: a, ctx: ctx, opts: opts}
}

// Object is the object with the files applied so far. It shares what no
// file changed with the input; the next file may change the rest in
// place, so read it once the files are applied, and treat it as
// read-only.
func (s *Sequence) Object() map[string]any { return s.a.root }

// Close ends the sequence; Object stays valid.
func (s *Sequence) Close() {
	if s.a == nil {
		return
	}
	s.a.reset()
	appliers.Put(s.a)
	s.a = nil
}

// Apply applies one file to the object, matching it against the object
// as the files before it left it (or as ApplyOptions.Identity says). A file that fails leaves no trace: its
// errors are returned as Apply returns them (an ErrorList of
// *ApplyError), or a *PanicError for a panic. changed reports whether the
// object after the file differs from the object before it, numbers
// compared by value.
func (s *Sequence) Apply(p *Patch) (changed bool, err error) {
	a := s.a
	before, mark, images := a.root, len(a.undo), len(a.images)
	defer func() {
		if r := recover(); r != nil {
			a.rollback(mark)
			clear(a.images[images:])
			a.images = a.images[:images]
			changed, err = false, &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	a.file++
	a.meter.start(s.ctx, s.opts.Budget)
	ref := s.opts.identity(a.root)
	if !s.typed || ref.APIVersion != s.kind[0] || ref.Kind != s.kind[1] {
		a.custom, s.kind, s.typed = s.opts.custom(&ref), [2]string{ref.APIVersion, ref.Kind}, true
	}
	if err := a.applyPatch(p, &ref, nil).Err(); err != nil {
		return false, err
	}
	changed = a.changedSince(mark, before)
	clear(a.undo[mark:]) // the file is done: it is never rolled back
	a.undo = a.undo[:mark]
	return changed, nil
}
