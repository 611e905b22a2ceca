package apply

import (
	"errors"
	"fmt"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// ErrImmutable is why a file is left out of an object on an UPDATE: its
// own changes touch a field that the API server does not let an UPDATE
// of the object's kind change (immutableFields).
var ErrImmutable = errors.New("the file changes a field an UPDATE may not change")

// ImmutableError is a file left out of an object on an UPDATE because
// its changes set a field that an UPDATE may not change to a value the
// stored object does not have: the Err of its Immutable run.
type ImmutableError struct {
	// File is the file's name; Object the object, "Kind namespace/name";
	// Field the first immutable field the file changes, "spec.selector".
	File, Object, Field string
}

// Error names the file, the object and the field.
func (e *ImmutableError) Error() string {
	return fmt.Sprintf("%s: not applied on UPDATE: %s: %v: %s", e.File, e.Object, ErrImmutable, e.Field)
}

// Unwrap returns ErrImmutable.
func (e *ImmutableError) Unwrap() error { return ErrImmutable }

// The rule: on an UPDATE, a file whose own changes (the object before and
// after it) touch a field that an UPDATE of the object's kind may not
// change, and leave there a value the stored object (the old object) does
// not have, is left out of the object whole, as if it did not apply: the
// API server would refuse the UPDATE, and the user's change (a label, a
// controller's write) with it. The file is left out whole rather than
// field by field, as a file that fails, so that its changes apply
// together or not at all. It is no problem of the object (Problems leaves
// it out): no warning, never a denial under --strict; its result is
// Immutable, with an *ImmutableError.
//
// Without an old object (the CLI's `--request-operation UPDATE`, an old
// object that does not decode), the old object is the object as it
// entered the loop: an UPDATE that changes none of the stored object's
// immutable fields, as every UPDATE the API server accepts.

// immutable returns why f, whose changes made after of before, is left
// out of the object on the run's operation; nil when it is not.
func (o *Object) immutable(f File, op string, before, after map[string]any) error {
	if op != "UPDATE" {
		return nil
	}
	field := immutableChange(o.oldObject, before, after)
	if field == "" {
		return nil
	}
	return &ImmutableError{File: f.Name(), Object: kpatch.RefOf(after, o.opts.Namespace).String(), Field: field}
}

// oldObject is the stored object of the UPDATE, asked once: the object
// as it entered the loop when there is none.
func (o *Object) oldObject() map[string]any {
	if !o.oldRead {
		o.oldRead = true
		if o.adm.Objects != nil {
			o.old = o.adm.Objects.OldObject()
		}
		if o.old == nil {
			o.old = o.in
		}
	}
	return o.old
}
