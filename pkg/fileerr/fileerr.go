// Package fileerr is the errors of registry files (patch files,
// replacements files): each is placed at a line and column of its file and
// names its cause with a sentinel, so that a caller tests the cause with
// errors.Is and prints the place without parsing a message.
//
// The engine (package kpatch) and the other file kinds (packages
// replacement, parameters) report through these types; none of them has
// to import another to do so.
package fileerr

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Sentinel errors name the cause of a ParseError or an ApplyError; test for
// them with errors.Is.
var (
	// ErrSyntax is a line, header, path or value that does not follow the format.
	ErrSyntax = errors.New("syntax error")
	// ErrEncoding is text that is not valid UTF-8.
	ErrEncoding = errors.New("invalid UTF-8")
	// ErrValue is a value that is not a scalar or does not fit its field.
	ErrValue = errors.New("invalid value")
	// ErrVariable is a variable that is undefined or not bound to a scalar.
	ErrVariable = errors.New("variable error")
	// ErrUnknownField is a path through a field that the kind's schema lacks.
	ErrUnknownField = errors.New("unknown field")
	// ErrNoMatch is a selector that matches no item of a list.
	ErrNoMatch = errors.New("no match")
	// ErrIndex is a list index past the end of the list.
	ErrIndex = errors.New("index out of range")
	// ErrType is a path that meets a value of the wrong type: a scalar
	// where a map is needed, a selector on a map, a field on a string.
	ErrType = errors.New("type mismatch")
	// ErrImage is an image reference that cannot be parsed or rebuilt.
	ErrImage = errors.New("invalid image reference")
	// ErrUnknownKind is a target kind that is a plural, a short name or a
	// near miss of a built-in kind, or that a built-in API group lacks.
	ErrUnknownKind = errors.New("unknown kind")
	// ErrUnmatchable is a target that no object can match: an API group
	// or version that does not exist, a name or namespace no object has.
	ErrUnmatchable = errors.New("target matches nothing")
	// ErrNotIdempotent is a construct that changes the object again each
	// time its file runs; a check reports it as a warning.
	ErrNotIdempotent = errors.New("not idempotent")
	// ErrLimit is a file beyond a limit of the format: aliases of a YAML
	// patch file that expand too far, values built from variables that
	// are too large.
	ErrLimit = errors.New("limit exceeded")
	// ErrRefused is a result the API server would refuse: a value that
	// does not fit its field by the schema of the object's kind, found
	// on the object (a custom resource's schema is known only there).
	ErrRefused = errors.New("the API server would refuse the object")
)

// Position is a place in a file. Line and Column count from 1; Column
// counts bytes.
type Position struct {
	File   string
	Line   int
	Column int
}

// String formats the position as file:line:column.
func (p Position) String() string {
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// ParseError is a problem in a file found without any object.
type ParseError struct {
	Pos Position
	Err error  // the sentinel cause, such as ErrSyntax
	Msg string // what was found and what was expected
}

// Error formats the error as file:line:column: message.
func (e *ParseError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns the sentinel cause.
func (e *ParseError) Unwrap() error { return e.Err }

// ApplyError is a problem of one entry of a file on one object. The file
// that produced it left the object unchanged.
type ApplyError struct {
	Pos    Position
	Object string // the object, as "Kind namespace/name"
	Err    error  // the sentinel cause, such as ErrNoMatch
	Msg    string
	// Field is the field the problem is about, as a full path, when it
	// is one field (a ${required} field nothing set); "" otherwise.
	Field string
}

// Error formats the error as file:line:column: object: message.
func (e *ApplyError) Error() string {
	return e.Pos.String() + ": " + e.Object + ": " + e.Msg
}

// Unwrap returns the sentinel cause.
func (e *ApplyError) Unwrap() error { return e.Err }

// List is every error of one call, in file order. It is returned as an
// error only when it is not empty.
type List []error

// Error joins the errors, one a line.
func (l List) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Unwrap gives errors.Is and errors.As every error of the list.
func (l List) Unwrap() []error { return l }

// Err returns the list as an error, or nil when it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// SortParseErrors orders a list of *ParseError by line and column, keeping
// the order of errors at one place.
func SortParseErrors(l List) {
	slices.SortStableFunc(l, func(a, b error) int {
		pa, pb := a.(*ParseError).Pos, b.(*ParseError).Pos
		if pa.Line != pb.Line {
			return pa.Line - pb.Line
		}
		return pa.Column - pb.Column
	})
}
