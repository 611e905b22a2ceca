package kpatch

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrPanic is a library the engine calls (the strategic merge library)
// that panicked on an object. The file that called it is not applied to
// that object; the other files are. The error wraps a *PanicError, which
// holds the stack.
var ErrPanic = errors.New("internal error")

// PanicError is a recovered panic: the value and the stack it was
// raised with, for a log line. It unwraps to ErrPanic.
type PanicError struct {
	Value any
	Stack []byte
}

// Error formats the panic's value.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns ErrPanic.
func (e *PanicError) Unwrap() error { return ErrPanic }

// panicProblem is a problem for a panic of what, recovered with value r;
// call it from the deferred function that recovered.
func panicProblem(what string, r any) *problem {
	return &problem{
		err: &PanicError{Value: r, Stack: debug.Stack()},
		msg: fmt.Sprintf("%s failed on this object (panic: %v); the file is not applied to it", what, r),
	}
}
