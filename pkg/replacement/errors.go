package replacement

import (
	"errors"
	"fmt"

	"kpatch.dev/kpatch/pkg/fileerr"
)

// Sentinel errors name the cause of an *Error; test for them with
// errors.Is. Parse errors are *fileerr.ParseError with fileerr.ErrSyntax or
// fileerr.ErrValue.
var (
	// ErrSource is a replacement whose source cannot be resolved: nothing
	// or several objects selected, or the field is missing or unusable. At
	// admission such a replacement is skipped with a warning.
	ErrSource = errors.New("unresolved replacement source")
	// ErrNoSource is a source selector that selects no object.
	ErrNoSource = fmt.Errorf("%w: nothing selected", ErrSource)
	// ErrAmbiguousSource is a source selector that selects several objects.
	ErrAmbiguousSource = fmt.Errorf("%w: multiple matches", ErrSource)
	// ErrSourceField is a source field that is missing, empty, or cannot be
	// split as the options ask.
	ErrSourceField = fmt.Errorf("%w: source field", ErrSource)
	// ErrTargetField is a target field path that leads nowhere in a
	// selected object, or meets a value of the wrong kind.
	ErrTargetField = errors.New("replacement target field")
	// ErrValue is a value that does not fit its target: a text that is no
	// integer for an integer field, a delimiter on a map.
	ErrValue = errors.New("replacement value")
	// ErrFieldType is an ErrValue that the target field's type, as the
	// schema of its kind says, cannot take: the API server would refuse
	// the object (fileerr.ErrRefused), which lint reports.
	ErrFieldType = fmt.Errorf("%w: %w", ErrValue, fileerr.ErrRefused)
)

// Error is a replacement that failed: where it is written, which object
// it failed on (empty for a source resolved among all objects), and why.
type Error struct {
	Pos    fileerr.Position
	Object string // "Kind namespace/name" of the target, if any
	Err    error  // the sentinel cause, such as ErrNoSource
	Msg    string // the message, in kustomize's words
}

// Error formats the error as file:line:column: [object: ]message.
func (e *Error) Error() string {
	if e.Object == "" {
		return e.Pos.String() + ": " + e.Msg
	}
	return e.Pos.String() + ": " + e.Object + ": " + e.Msg
}

// Unwrap returns the sentinel cause.
func (e *Error) Unwrap() error { return e.Err }

// failure is an error found while walking, before its position is known.
type failure struct {
	err error
	msg string
}

func (f *failure) Error() string { return f.msg }

func fail(sentinel error, format string, args ...any) *failure {
	return &failure{err: sentinel, msg: fmt.Sprintf(format, args...)}
}

// at gives the failure its position and object.
func (f *failure) at(pos fileerr.Position, object string) *Error {
	return &Error{Pos: pos, Object: object, Err: f.err, Msg: f.msg}
}

// wrongKind is kyaml's message for a path that meets the wrong kind of
// node.
func wrongKind(expected string, got any) string {
	return fmt.Sprintf("wrong node kind: expected %s but got %s", expected, kindName(got))
}

func kindName(v any) string {
	switch v.(type) {
	case map[string]any:
		return "MappingNode"
	case []any:
		return "SequenceNode"
	}
	return "ScalarNode"
}
