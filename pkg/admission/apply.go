package admission

import (
	"context"
	"errors"
	"fmt"

	"kpatch.dev/kpatch/internal/objectjson"
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

// ErrUnencodable is a file's result that JSON cannot hold, such as a
// non-finite number.
var ErrUnencodable = errors.New("its result cannot be encoded as JSON")

// applyFiles applies the files to obj (apply.RunObject) and encodes the
// JSONPatch. When the JSONPatch does not encode, it applies the files
// again, checking each file's own changes, and drops each file whose
// changes do not encode, so that one file's bad value does not cost the
// others theirs.
func applyFiles(ctx context.Context, obj map[string]any, files []apply.File, opts *apply.Options) (*apply.ObjectRun, []byte, *internalError) {
	run, err := apply.RunObject(ctx, obj, files, opts)
	if err != nil {
		return nil, nil, canceled(err)
	}
	patch, err := objectjson.JSONPatch(run.In, run.Out)
	if err == nil {
		return run, patch, nil
	}
	checked := *opts
	checked.Check = encodes
	if run, err = apply.RunObject(ctx, obj, files, &checked); err != nil {
		return nil, nil, canceled(err)
	}
	if patch, err = objectjson.JSONPatch(run.In, run.Out); err != nil {
		return nil, nil, encodeFailed(err)
	}
	return run, patch, nil
}

// encodes fails a file whose own changes do not encode as a JSONPatch.
func encodes(f apply.File, before, after map[string]any) error {
	if _, err := objectjson.JSONPatch(before, after); err != nil {
		return fmt.Errorf("%s: not applied: %w: %v", f.Name(), ErrUnencodable, err)
	}
	return nil
}
