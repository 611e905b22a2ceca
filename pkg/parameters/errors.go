package parameters

import (
	"errors"
	"fmt"
	"strconv"

	"kpatch.dev/kpatch/pkg/fileerr"
)

// Sentinel errors name the cause of an *Error; test for them with
// errors.Is.
var (
	// ErrSyntax is a file that is not YAML, or not of the expected shape.
	ErrSyntax = errors.New("syntax error")
	// ErrDeclaration is a parameter declaration that contradicts itself:
	// an invalid name, an unknown type, minimum above maximum, an invalid
	// pattern, a key that does not apply to the parameter's type.
	ErrDeclaration = errors.New("invalid parameter declaration")
	// ErrDuplicate is a parameter declared twice, or a key given twice.
	ErrDuplicate = errors.New("duplicate")
	// ErrType is a value of the wrong type, or text that does not convert
	// to the parameter's type.
	ErrType = errors.New("wrong type")
	// ErrRange is a number outside the parameter's minimum and maximum.
	ErrRange = errors.New("out of range")
	// ErrEnum is a value that is not one of the parameter's enum.
	ErrEnum = errors.New("not in enum")
	// ErrPattern is a string that does not match the parameter's pattern.
	ErrPattern = errors.New("does not match pattern")
	// ErrUndeclared is a value, or a reference in a default, naming a
	// parameter that the schema does not declare.
	ErrUndeclared = errors.New("undeclared parameter")
	// ErrRequired is a required parameter that no layer sets.
	ErrRequired = errors.New("required parameter missing")
	// ErrCycle is a set of defaults that use each other.
	ErrCycle = errors.New("cycle in defaults")
	// ErrNoValue is a default that uses a parameter which has no value.
	ErrNoValue = errors.New("default uses a parameter without value")
)

// Source is where a value or a declaration came from: a position in a
// file, or a flag or an annotation.
type Source struct {
	// Name is a file name, or what the value came from, such as
	// "--set values.replicas" or
	// "namespace team-a annotation values.kpatch.dev/tier".
	Name string
	// Line and Column count from 1 in the file Name; both are 0 when the
	// source is not a file.
	Line, Column int
}

// String formats the source as file:line:column, or as its name.
func (s Source) String() string {
	if s.Line == 0 {
		return s.Name
	}
	return s.Name + ":" + strconv.Itoa(s.Line) + ":" + strconv.Itoa(s.Column)
}

// Error is one problem of a schema or of a value.
type Error struct {
	Source Source
	// Param is the parameter the error is about; empty for errors that
	// are about no single parameter (a file that is not YAML).
	Param string
	Err   error  // the sentinel cause, such as ErrType
	Msg   string // what was found and what was expected
}

// Error formats the error as source: parameter "name": message.
func (e *Error) Error() string {
	s := e.Source.String() + ": "
	if e.Param != "" {
		s += "parameter " + strconv.Quote(e.Param) + ": "
	}
	return s + e.Msg
}

// Unwrap returns the sentinel cause.
func (e *Error) Unwrap() error { return e.Err }

// problem is an error without a source yet: the check that finds it does
// not know where the value came from.
type problem struct {
	err error
	msg string
}

func problemf(sentinel error, format string, args ...any) *problem {
	return &problem{err: sentinel, msg: fmt.Sprintf(format, args...)}
}

// at places a problem at a source.
func (p *problem) at(src Source, param string) *Error {
	return &Error{Source: src, Param: param, Err: p.err, Msg: p.msg}
}

// errorList collects errors; Err returns nil when there is none.
type errorList struct{ fileerr.List }

func (l *errorList) add(e *Error) { l.List = append(l.List, e) }

func (l *errorList) addf(src Source, param string, sentinel error, format string, args ...any) {
	l.add(problemf(sentinel, format, args...).at(src, param))
}

// Err returns the errors as a fileerr.List, or nil.
func (l *errorList) Err() error { return l.List.Err() }

// ParamErrors returns the names of the parameters that err's *Errors are
// about, each once, in the order of the errors: a caller that skips only
// what uses a failed parameter (the webhook skips the files that use it)
// reads them here.
func ParamErrors(err error) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range flatten(err) {
		var pe *Error
		if errors.As(e, &pe) && pe.Param != "" && !seen[pe.Param] {
			seen[pe.Param] = true
			out = append(out, pe.Param)
		}
	}
	return out
}

func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if list, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range list.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}
