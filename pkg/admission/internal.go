package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/metrics"
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
	return &internalError{metrics.ReasonNotSynced, http.StatusServiceUnavailable, errNotSynced}
}

func decodeFailed(err error) *internalError {
	return &internalError{metrics.ReasonDecode, http.StatusBadRequest, fmt.Errorf("decoding the object: %w", err)}
}

func encodeFailed(err error) *internalError {
	return &internalError{metrics.ReasonEncode, http.StatusInternalServerError, fmt.Errorf("encoding the JSONPatch: %w", err)}
}

func canceled(err error) *internalError {
	code := int32(http.StatusServiceUnavailable)
	if errors.Is(err, context.DeadlineExceeded) {
		code = http.StatusGatewayTimeout
	}
	return &internalError{metrics.ReasonCanceled, code, fmt.Errorf("the request ended before the object was patched: %w", err)}
}

func panicked(r any) *internalError {
	return &internalError{metrics.ReasonPanic, http.StatusInternalServerError, fmt.Errorf("panic: %v", r)}
}

// answerInternal answers an internal error by the Handler's ErrorPolicy:
// deny, or admit the object unpatched with a warning. Either way it is
// logged and counted.
func (h *Handler) answerInternal(log logr.Logger, e *internalError) (admission.Response, string) {
	h.Metrics.InternalError(e.reason)
	if h.OnError == ErrorPolicyDeny {
		log.Error(e.err, "denied: internal error", "reason", e.reason, "onError", ErrorPolicyDeny)
		return admission.Errored(e.code, fmt.Errorf("%s%w", prefix, e.err)), metrics.ResultError
	}
	log.Error(e.err, "admitted unpatched: internal error", "reason", e.reason, "onError", ErrorPolicyAllow)
	return admission.Allowed("").WithWarnings(prefix + "not patched: " + e.err.Error()), metrics.ResultError
}
