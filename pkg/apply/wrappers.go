package apply

import (
	"errors"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// Disabling returns f disabled: reported Disabled, with why, and never
// applied (a file whose enabled: metadata is false), on the objects f
// targets or, everywhere, on every object it is given.
func Disabling(f File, why string, everywhere bool) File {
	return &outFile{File: f, result: Disabled, err: errors.New(why), matching: !everywhere}
}

// Failing returns f failing with err on every object it targets, never
// applied: a file whose values or metadata leave it out for the object.
func Failing(f File, err error) File {
	return &outFile{File: f, result: Failed, err: err, matching: true}
}

// outFile is a file that does not apply, and says why.
type outFile struct {
	File
	result   string
	err      error
	matching bool // reported on the objects f targets only
}

func (f *outFile) Matches(o *Object) bool { return !f.matching || f.File.Matches(o) }

func (f *outFile) Apply(*Object) (string, error) { return f.result, f.err }

func (f *outFile) WithValues(*kpatch.Variables) File { return f }

// EvalConditions does nothing: a file left out evaluates no condition.
// Its Meta is its file's: a file left out of an operation is not
// reported there, and the failure of one in audit mode changes nothing.
func (f *outFile) EvalConditions(*Object) {}

func (f *outFile) Required(map[string]any, *kpatch.ObjectRef, kpatch.ApplyOptions) []error {
	return nil
}
