package admission

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// File results, the values of the result label of
// kpatch_file_applications_total. A file counts once per object it
// targets; files that do not target an object do not count.
const (
	// FilePatched is a file that changed the object.
	FilePatched = "patched"
	// FileUnchanged is a file that applied and found the object as it
	// says already (a reinvocation, an object written that way).
	FileUnchanged = "unchanged"
	// FileFailed is a file that failed on the object and left it
	// untouched: an entry that does not fit, a panic, a result that
	// cannot be encoded.
	FileFailed = "failed"
)

// PanicError is a panic recovered while a patch file applied to an
// object: that file fails for that object, the others still apply.
type PanicError struct {
	File  string
	Value any
	// Stack is the goroutine's stack where the panic happened.
	Stack []byte
}

// Error names the file and the panic.
func (e *PanicError) Error() string {
	return fmt.Sprintf("%s: not applied: it panicked on the object: %v", e.File, e.Value)
}

// ErrUnencodable is a file's result that JSON cannot hold, such as a
// non-finite number.
var ErrUnencodable = errors.New("its result cannot be encoded as JSON")

// fileRun is what one file did to one object.
type fileRun struct {
	file   string
	patch  *kpatch.Patch
	result string // FilePatched, FileUnchanged or FileFailed
	err    error  // why it failed
}

// objectRun is the files of a registry applied to one object.
type objectRun struct {
	in, out map[string]any
	ref     kpatch.ObjectRef // the object as the files matched it
	files   []fileRun
}

// applyFiles applies each patch that targets obj, in order, to the result
// of the ones before it, in one kpatch.Sequence that shares the copies
// the files make. Each file runs under recover: a panic fails that
// file only. With checkEncoding, a file whose own changes do not encode as
// a JSONPatch fails too. It returns ctx's error if ctx ends between two
// files.
func applyFiles(ctx context.Context, obj map[string]any, patches []*kpatch.Patch, rr *replacementRun, opts kpatch.ApplyOptions, checkEncoding bool) (*objectRun, error) {
	ref := kpatch.RefOf(obj, opts.Namespace)
	run := &objectRun{in: obj, out: obj, ref: ref, files: make([]fileRun, 0, len(patches))}
	files := newFileApplier(ctx, obj, opts, checkEncoding)
	defer files.close()
	for i, p := range patches {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !rr.targets(p, files.object(), &ref) {
			continue
		}
		if rr.of(p) != nil {
			run.files = append(run.files, files.applyFunc(p, func(obj map[string]any) (map[string]any, error) {
				return rr.applyFile(ctx, patches[i:i+1], obj, opts)
			}))
			continue
		}
		run.files = append(run.files, files.apply(patches[i:i+1]))
	}
	run.out = files.object()
	return run, nil
}

// applyFile applies one file, the only patch of one (a slice of the
// registry's, so that no slice is allocated per file), within
// opts.Budget and until ctx ends (the engine rolls the file back and fails
// it with kpatch.ErrBudget), turning a panic into a *PanicError. The
// engine never modifies its input, so obj is intact after a panic.
func applyFile(ctx context.Context, one []*kpatch.Patch, obj map[string]any, opts kpatch.ApplyOptions) (out map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = obj, &PanicError{File: one[0].Name(), Value: r, Stack: debug.Stack()}
		}
	}()
	out, err = kpatch.ApplyContext(ctx, obj, one, opts)
	// the engine recovers the panics of the merge libraries itself
	if pe := (*kpatch.PanicError)(nil); errors.As(err, &pe) {
		return obj, filePanic(one[0], err)
	}
	return out, err
}

// failed returns the files that failed.
func (r *objectRun) failed() []fileRun {
	var out []fileRun
	for _, f := range r.files {
		if f.err != nil {
			out = append(out, f)
		}
	}
	return out
}
