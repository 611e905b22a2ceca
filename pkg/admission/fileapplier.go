package admission

import (
	"context"
	"errors"
	"fmt"

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
	fr := fileRun{file: p.Name(), err: filePanic(p, err)}
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
		if _, eerr := jsonPatch(f.out, next); eerr != nil {
			err = fmt.Errorf("%s: not applied: %w: %v", p.Name(), ErrUnencodable, eerr)
		}
	}
	fr := fileRun{file: p.Name(), err: err}
	switch {
	case err != nil:
		fr.result = FileFailed
	case sameValue(f.out, next):
		fr.result = FileUnchanged
	default:
		fr.result = FilePatched
		f.out = next
	}
	return fr
}

// filePanic turns the engine's panic of a file into a *PanicError naming
// the file; other errors are returned as they are.
func filePanic(p *kpatch.Patch, err error) error {
	if pe := (*kpatch.PanicError)(nil); err != nil && errors.As(err, &pe) {
		return &PanicError{File: p.Name(), Value: pe.Value, Stack: pe.Stack}
	}
	return err
}
