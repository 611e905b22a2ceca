package apply

import (
	"fmt"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// Validator holds the results of the files to what the API server
// accepts for their kind (pkg/schema's Checker is one).
type Validator interface {
	// Check returns why the API server would refuse after, the object
	// before changed by files, reading only what changed; nil when it
	// accepts it.
	Check(before, after map[string]any) error
}

// SchemaSource is a Validator that also knows the schemas of custom
// resources (pkg/schema's Checker with CRDs): what the files write into
// one then takes its fields' types from them
// (kpatch.ApplyOptions.Schemas), unless the options set their own.
type SchemaSource interface {
	// Schemas returns the schemas of custom resources, or nil when it
	// knows none.
	Schemas() func(apiVersion, kind string) *kpatch.CustomResourceSchema
}

// typedBy gives the engine of o the schemas of custom resources that
// valid knows (SchemaSource), unless o has its own.
func typedBy(o *Options, valid Validator) {
	if src, ok := valid.(SchemaSource); ok && o.Schemas == nil {
		o.Schemas = src.Schemas()
	}
}

// RefusedError is a file left out of an object because its changes make
// the object one the API server would refuse (Options.Valid).
type RefusedError struct {
	// File is the file's name; Object the object, "Kind namespace/name".
	File, Object string
	// Err is why the API server would refuse the result.
	Err error
}

// Error names the file, the object and why.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s: not applied: %s: the API server would refuse the result: %v", e.File, e.Object, e.Err)
}

// Unwrap returns why the API server would refuse the result.
func (e *RefusedError) Unwrap() error { return e.Err }

// The invariant: every object the loop returns is one the API server
// accepts, and a file that breaks one is left out of it alone. The files
// apply as they would without Valid; only when a result does not pass
// do they apply again, each checked on its own changes. A file whose
// changes would be refused fails on that object, which leaves the object
// as the files before it left it, and the files after it apply to that.
// So a file that writes a value a later file corrects is not left out,
// and the price of the check is one look at what changed, while every
// result passes.

// firstPass are the options of the first pass: the loop as without Valid,
// not observed (an Observer sees the pass whose result is returned).
func firstPass(opts *Options) *Options {
	o := *opts
	typedBy(&o, opts.Valid)
	o.Valid, o.Observer = nil, nil
	return &o
}

// unchecked are the options of a pass that returns the first pass's
// result, observed.
func unchecked(opts *Options) *Options {
	o := *opts
	typedBy(&o, opts.Valid)
	o.Valid = nil
	return &o
}

// checked are the options of the second pass: each file that changed an
// object is checked on its own changes, after opts.Check.
func checked(opts *Options) *Options {
	o := *opts
	typedBy(&o, opts.Valid)
	o.Valid = nil
	valid, check := opts.Valid, opts.Check
	o.Check = func(f File, before, after map[string]any) error {
		if check != nil {
			if err := check(f, before, after); err != nil {
				return err
			}
		}
		if err := valid.Check(before, after); err != nil {
			return &RefusedError{File: f.Name(), Object: kpatch.RefOf(after, "").String(), Err: err}
		}
		return nil
	}
	return &o
}
