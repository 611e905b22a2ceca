package apply

import (
	"context"
	"errors"
	"fmt"

	"kpatch.dev/kpatch/internal/objectjson"
)

// ErrUnencodable is a file's result that JSON cannot hold, such as a
// non-finite number.
var ErrUnencodable = errors.New("its result cannot be encoded as JSON")

// RunPatch runs the files on obj (RunObject) and encodes the JSONPatch
// from obj to the result: the webhook's answer, and the CLI's with
// --admission. When the JSONPatch does not encode, it runs the files
// again, each file's own changes checked, and leaves out each file whose
// changes do not encode, so that one file's bad value does not cost the
// others theirs. Its error is ctx's (no run), or the JSONPatch's when
// the result still does not encode (the run of the second pass).
func RunPatch(ctx context.Context, obj map[string]any, files []File, opts *Options) (*ObjectRun, []byte, error) {
	run, err := RunObject(ctx, obj, files, opts)
	if err != nil {
		return nil, nil, err
	}
	patch, err := objectjson.JSONPatch(run.In, run.Out)
	if err == nil {
		return run, patch, nil
	}
	checked := *opts
	checked.Check = encodes
	if run, err = RunObject(ctx, obj, files, &checked); err != nil {
		return nil, nil, err
	}
	if patch, err = objectjson.JSONPatch(run.In, run.Out); err != nil {
		return run, nil, err
	}
	return run, patch, nil
}

// encodes fails a file whose own changes do not encode as a JSONPatch.
func encodes(f File, before, after map[string]any) error {
	if _, err := objectjson.JSONPatch(before, after); err != nil {
		return fmt.Errorf("%s: not applied: %w: %v", f.Name(), ErrUnencodable, err)
	}
	return nil
}
