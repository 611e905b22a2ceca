package apply

import (
	"fmt"

	"kpatch.dev/kpatch/pkg/replacement"
)

// PanicError is a panic recovered while a file applied to an object: that
// file fails on that object, the others still apply.
type PanicError struct {
	File  string
	Value any
	// Stack is the goroutine's stack where the panic happened.
	Stack []byte
}

// Error names the file and the panic.
func (e *PanicError) Error() string {
	return fmt.Sprintf("%s: not applied: it panicked on the object: %v", e.File, e.Value)
}

// ReplacementError is a replacement that failed on one object. Skipped
// says that its source could not be resolved (nothing or several objects
// selected, a missing field): that replacement is not applied and the
// file's others are; otherwise the whole file is not applied.
type ReplacementError struct {
	Err     *replacement.Error
	Skipped bool
}

// Error formats the error as file:line:column: not applied: [object: ]why.
func (e *ReplacementError) Error() string {
	what := "not applied: "
	if e.Skipped {
		what = "replacement not applied: "
	}
	msg := e.Err.Msg
	if e.Err.Object != "" {
		msg = e.Err.Object + ": " + msg
	}
	return e.Err.Pos.String() + ": " + what + msg
}

// Unwrap returns the replacement's error.
func (e *ReplacementError) Unwrap() error { return e.Err }
