package admission

import (
	"context"
	"errors"

	"kpatch.dev/kpatch/pkg/apply"
)

// File results, the values of the result label of
// kpatch_file_applications_total. A file counts once per object it
// targets; files that do not target an object do not count.
const (
	// FilePatched is a file that changed the object.
	FilePatched = apply.Patched
	// FileUnchanged is a file that applied and found the object as it
	// says already (a reinvocation, an object written that way).
	FileUnchanged = apply.Unchanged
	// FileFailed is a file that failed on the object and left it
	// untouched: an entry that does not fit, a panic, a result that
	// cannot be encoded.
	FileFailed = apply.Failed
)

// applyFiles applies the files to obj and encodes the JSONPatch
// (apply.RunPatch); its error is the request's end, or a result that
// does not encode.
func applyFiles(ctx context.Context, obj map[string]any, files []apply.File, opts *apply.Options) (*apply.ObjectRun, []byte, *internalError) {
	run, patch, err := apply.RunPatch(ctx, obj, files, opts)
	switch {
	case err == nil:
		return run, patch, nil
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil, nil, canceled(err)
	}
	return nil, nil, encodeFailed(err)
}
