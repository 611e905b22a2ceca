package admission

import (
	"context"
	"errors"
	"fmt"

	"kpatch.dev/kpatch/internal/objectjson"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// fileApplier applies files to one object one at a time and tells what
// each did. Without checkEncoding the files run in a kpatch.Sequence,
// sharing the copies they make; with it each file runs on its own copy
// of the result so far, to check that its own changes encode as a
// JSONPatch.
type fileApplier struct {
	ctx           context.Context
	opts          kpatch.ApplyOptions
	checkEncoding bool
	seq           kpatch.Sequence
	out           map[string]any // with checkEncoding: the object so far
}

func newFileApplier(ctx context.Context, obj map[string]any, opts kpatch.ApplyOptions, checkEncoding bool) *fileApplier {
	f := &fileApplier{ctx: ctx, opts: opts, checkEncoding: checkEncoding, out: obj}
	if !checkEncoding {
		f.seq = kpatch.NewSequence(ctx, obj, opts)
	}
	return f
}

// object is the object with the files applied so far.
func (f *fileApplier) object() map[string]any {
	if f.checkEncoding {
		return f.out
	}
	return f.seq.Object()
}

// close ends the sequence; object stays valid.
func (f *fileApplier) close() { f.seq.Close() }

// apply applies one file, the only patch of one, and says what it did.
func (f *fileApplier) apply(one []*kpatch.Patch) fileRun {
	p := one[0]
	if f.checkEncoding {
		return f.applyChecked(one)
	}
	changed, err := f.seq.Apply(p)
	fr := fileRun{file: p.Name(), patch: p, err: filePanic(p, err)}
	switch {
	case err != nil:
		fr.result = FileFailed
	case changed:
		fr.result = FilePatched
	default:
		fr.result = FileUnchanged
	}
	return fr
}

// applyChecked applies one file to a copy of what it changes, and fails
// it when its own changes do not encode as a JSONPatch.
func (f *fileApplier) applyChecked(one []*kpatch.Patch) fileRun {
	p := one[0]
	next, err := applyFile(f.ctx, one, f.out, f.opts)
	if err == nil {
		if _, eerr := objectjson.JSONPatch(f.out, next); eerr != nil {
			err = fmt.Errorf("%s: not applied: %w: %v", p.Name(), ErrUnencodable, eerr)
		}
	}
	fr := fileRun{file: p.Name(), patch: p, err: err}
	switch {
	case err != nil:
		fr.result = FileFailed
	case kpatch.SameJSON(f.out, next):
		fr.result = FileUnchanged
	default:
		fr.result = FilePatched
		f.out = next
	}
	return fr
}

// applyFunc applies a file that the engine does not apply (a
// replacements file) with apply, which returns a copy of the object with
// the file's changes and never modifies its input. A replacements file
// that skipped some replacements (skippedOnly) counts as patched when
// the others changed the object, else as failed; the sequence goes on
// from the result.
func (f *fileApplier) applyFunc(p *kpatch.Patch, apply func(map[string]any) (map[string]any, error)) fileRun {
	cur := f.object()
	next, err := apply(cur)
	if (err == nil || skippedOnly(err)) && f.checkEncoding {
		if _, eerr := objectjson.JSONPatch(cur, next); eerr != nil {
			err = fmt.Errorf("%s: not applied: %w: %v", p.Name(), ErrUnencodable, eerr)
		}
	}
	fr := fileRun{file: p.Name(), patch: p, err: err}
	switch {
	case err != nil && !(skippedOnly(err) && !kpatch.SameJSON(cur, next)):
		fr.result = FileFailed
	case kpatch.SameJSON(cur, next):
		fr.result = FileUnchanged
	default:
		fr.result = FilePatched
		f.setObject(next)
	}
	return fr
}

// setObject goes on from obj: the next files apply to it.
func (f *fileApplier) setObject(obj map[string]any) {
	if f.checkEncoding {
		f.out = obj
		return
	}
	f.seq.Close()
	f.seq = kpatch.NewSequence(f.ctx, obj, f.opts)
}

// filePanic turns the engine's panic of a file into a *PanicError naming
// the file; other errors are returned as they are.
func filePanic(p *kpatch.Patch, err error) error {
	if err == nil {
		return nil // before pe: its address escapes, one allocation per file
	}
	if pe := (*kpatch.PanicError)(nil); errors.As(err, &pe) {
		return &PanicError{File: p.Name(), Value: pe.Value, Stack: pe.Stack}
	}
	return err
}
