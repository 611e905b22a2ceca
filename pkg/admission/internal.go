package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Reasons of internal errors, the values of the reason label of
// kpatch_internal_errors_total.
const (
	ReasonNotSynced = "not-synced" // a request before the first registry sync
	ReasonDecode    = "decode"     // the object does not decode
	ReasonEncode    = "encode"     // the JSONPatch does not encode
	ReasonCanceled  = "canceled"   // the request's context ended: cancelled, or past its deadline
	ReasonPanic     = "panic"      // a panic outside any patch file
)

// internalError is an error that is not a patch file's own failure: the
// Handler answers it by its ErrorPolicy.
type internalError struct {
	reason string
	code   int32 // the HTTP status of a denial
	err    error
}

func (e *internalError) Error() string { return e.err.Error() }
func (e *internalError) Unwrap() error { return e.err }

func notSynced() *internalError {
	return &internalError{ReasonNotSynced, http.StatusServiceUnavailable, errNotSynced}
}

func decodeFailed(err error) *internalError {
	return &internalError{ReasonDecode, http.StatusBadRequest, fmt.Errorf("decoding the object: %w", err)}
}

func encodeFailed(err error) *internalError {
	return &internalError{ReasonEncode, http.StatusInternalServerError, fmt.Errorf("encoding the JSONPatch: %w", err)}
}

func canceled(err error) *internalError {
	code := int32(http.StatusServiceUnavailable)
	if errors.Is(err, context.DeadlineExceeded) {
		code = http.StatusGatewayTimeout
	}
	return &internalError{ReasonCanceled, code, fmt.Errorf("the request ended before the object was patched: %w", err)}
}

func panicked(r any) *internalError {
	return &internalError{ReasonPanic, http.StatusInternalServerError, fmt.Errorf("panic: %v", r)}
}

// answerInternal answers an internal error by the Handler's ErrorPolicy:
// deny, or admit the object unpatched with a warning. Either way it is
// logged and counted.
func (h *Handler) answerInternal(log logr.Logger, e *internalError) (admission.Response, string) {
	h.Metrics.internalError(e.reason)
	if h.OnError == ErrorPolicyDeny {
		log.Error(e.err, "denied: internal error", "reason", e.reason, "onError", ErrorPolicyDeny)
		return admission.Errored(e.code, fmt.Errorf("%s%w", prefix, e.err)), ResultError
	}
	log.Error(e.err, "admitted unpatched: internal error", "reason", e.reason, "onError", ErrorPolicyAllow)
	return admission.Allowed("").WithWarnings(prefix + "not patched: " + e.err.Error()), ResultError
}
