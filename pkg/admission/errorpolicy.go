package admission

import (
	"errors"
	"fmt"
)

// ErrorPolicy is the answer to an internal error: anything that is not a
// patch file's own failure on the object, such as an object that does not
// decode, a response that does not encode, a panic outside a file, or a
// request whose context ends.
type ErrorPolicy string

const (
	// ErrorPolicyAllow admits the object unpatched, with a warning. It is
	// the zero value's meaning and matches failurePolicy: Ignore.
	ErrorPolicyAllow ErrorPolicy = "allow"
	// ErrorPolicyDeny denies the object, as failurePolicy: Fail would.
	ErrorPolicyDeny ErrorPolicy = "deny"
)

// ErrBadErrorPolicy is an error policy other than allow and deny.
var ErrBadErrorPolicy = errors.New("not allow or deny")

// ParseErrorPolicy parses allow or deny.
func ParseErrorPolicy(s string) (ErrorPolicy, error) {
	switch p := ErrorPolicy(s); p {
	case ErrorPolicyAllow, ErrorPolicyDeny:
		return p, nil
	}
	return "", fmt.Errorf("%q: %w", s, ErrBadErrorPolicy)
}
