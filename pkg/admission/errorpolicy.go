package admission

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/admit"
	"kpatch.dev/kpatch/pkg/metrics"
)

// ErrorPolicy is the answer to an internal error: anything that is not a
// patch file's own failure on the object, such as an object that does not
// decode, a response that does not encode, a panic outside a file, or a
// request whose context ends (admit.Error).
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

func panicked(r any) *admit.Error {
	return &admit.Error{Reason: metrics.ReasonPanic, Code: http.StatusInternalServerError, Err: fmt.Errorf("panic: %v", r)}
}

// answerInternal answers an internal error by the Handler's ErrorPolicy:
// deny, or admit the object unpatched with a warning. Either way it is
// logged and counted.
func (h *Handler) answerInternal(log logr.Logger, e *admit.Error) (admission.Response, string) {
	h.Metrics.InternalError(e.Reason)
	if h.OnError == ErrorPolicyDeny {
		log.Error(e.Err, "denied: internal error", "reason", e.Reason, "onError", ErrorPolicyDeny)
		return admission.Errored(e.Code, fmt.Errorf("%s%w", prefix, e.Err)), metrics.ResultError
	}
	log.Error(e.Err, "admitted unpatched: internal error", "reason", e.Reason, "onError", ErrorPolicyAllow)
	return admission.Allowed("").WithWarnings(prefix + "not patched: " + e.Err.Error()), metrics.ResultError
}
