package kpatch

import (
	"errors"
	"fmt"

	"kpatch.dev/kpatch/pkg/fileerr"
)

// The sentinel errors of the engine are those of package fileerr, under
// the names the engine's callers use; test for them with errors.Is.
var (
	ErrSyntax        = fileerr.ErrSyntax
	ErrEncoding      = fileerr.ErrEncoding
	ErrValue         = fileerr.ErrValue
	ErrVariable      = fileerr.ErrVariable
	ErrUnknownField  = fileerr.ErrUnknownField
	ErrNoMatch       = fileerr.ErrNoMatch
	ErrIndex         = fileerr.ErrIndex
	ErrType          = fileerr.ErrType
	ErrImage         = fileerr.ErrImage
	ErrUnknownKind   = fileerr.ErrUnknownKind
	ErrUnmatchable   = fileerr.ErrUnmatchable
	ErrNotIdempotent = fileerr.ErrNotIdempotent
	ErrLimit         = fileerr.ErrLimit
	ErrRefused       = fileerr.ErrRefused
)

// errRefusedValue is the cause of a value that a custom resource's
// schema does not take: a value error that the API server would refuse,
// found on the object (see refusedBySchema).
var errRefusedValue = errors.Join(ErrValue, ErrRefused)

// refusedBySchema marks a problem of a value typed by a custom
// resource's schema (ApplyOptions.Schemas) as one the API server would
// refuse: what lint reports of a result, as it reports a built-in kind's
// at compile time.
func refusedBySchema(err *problem) *problem {
	switch err.err {
	case ErrValue, ErrUnknownField, ErrType:
		q := *err
		q.err = errRefusedValue
		return &q
	}
	return err
}

// Position is a place in a patch file (fileerr.Position).
type Position = fileerr.Position

// ParseError is a problem in a patch file found without any object
// (fileerr.ParseError).
type ParseError = fileerr.ParseError

// ApplyError is a problem of one entry of a patch file on one object
// (fileerr.ApplyError). The file that produced it left the object
// unchanged.
type ApplyError = fileerr.ApplyError

// ErrorList is every error of one call, in file order (fileerr.List).
type ErrorList = fileerr.List

// problem is the one internal error of the engine: a sentinel cause, a
// message and, once known, the line and column it is reported at. It
// becomes a ParseError or an ApplyError at the package's boundary.
// Compiled patches share problems: at returns a placed copy.
type problem struct {
	err error
	msg string
	// word and candidates, when set, add to the message when it is
	// reported the candidate the word most likely means: a suggestion,
	// worked out only for the problems that are shown.
	word       string
	candidates []string
	line, col  int
}

func (p *problem) Error() string { return p.text() }

// text is the message with its hint.
func (p *problem) text() string {
	if p.candidates != nil {
		return p.msg + didYouMean(p.word, p.candidates)
	}
	return p.msg
}
func (p *problem) Unwrap() error { return p.err }

// errorf makes a problem whose position the caller adds.
func errorf(sentinel error, format string, args ...any) *problem {
	return &problem{err: sentinel, msg: fmt.Sprintf(format, args...)}
}

// errorAt makes a problem at a column of a line the caller knows.
func errorAt(col int, sentinel error, format string, args ...any) *problem {
	return &problem{err: sentinel, msg: fmt.Sprintf(format, args...), col: col}
}

// at returns a copy of p placed at line and column.
func (p *problem) at(line, col int) *problem {
	q := *p
	q.line, q.col = line, col
	return &q
}

// prefixed returns a copy of p whose message starts with prefix, such
// as the path of the field.
func (p *problem) prefixed(prefix string) *problem {
	q := *p
	q.msg = prefix + ": " + p.msg
	return &q
}

// orAt returns p placed at line and column unless it has a place of its
// own.
func (p *problem) orAt(line, col int) *problem {
	if p.line > 0 {
		return p
	}
	return p.at(line, col)
}

// parseError turns a placed problem into a ParseError of file.
func (p *problem) parseError(file string) *ParseError {
	return &ParseError{Pos: Position{File: file, Line: p.line, Column: p.col}, Err: p.err, Msg: p.text()}
}

// applyError turns a placed problem into an ApplyError of file on obj.
func (p *problem) applyError(file string, obj *ObjectRef) *ApplyError {
	return &ApplyError{Pos: Position{File: file, Line: p.line, Column: p.col}, Object: obj.String(), Err: p.err, Msg: p.text()}
}

// sortErrors orders parse errors by line and column.
func sortErrors(errs ErrorList) { fileerr.SortParseErrors(errs) }
