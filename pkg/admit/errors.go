package admit

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"kpatch.dev/kpatch/pkg/metrics"
)

// Error is an error of admitting an object that is not a patch file's
// own failure on it: the webhook answers it by its error policy.
type Error struct {
	// Reason is the reason label of kpatch's internal errors metric
	// (metrics.ReasonDecode, ...).
	Reason string
	// Code is the HTTP status of a denial.
	Code int32
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ErrNotSynced is a request before the registry's first sync.
var ErrNotSynced = errors.New("the registry has not synced yet")

func notSynced() *Error {
	return &Error{metrics.ReasonNotSynced, http.StatusServiceUnavailable, ErrNotSynced}
}

func decodeFailed(err error) *Error {
	return &Error{metrics.ReasonDecode, http.StatusBadRequest, fmt.Errorf("decoding the object: %w", err)}
}

// EncodeFailed is the error of a JSONPatch that does not encode.
func EncodeFailed(err error) *Error {
	return &Error{metrics.ReasonEncode, http.StatusInternalServerError, fmt.Errorf("encoding the JSONPatch: %w", err)}
}

func canceled(err error) *Error {
	code := int32(http.StatusServiceUnavailable)
	if errors.Is(err, context.DeadlineExceeded) {
		code = http.StatusGatewayTimeout
	}
	return &Error{metrics.ReasonCanceled, code, fmt.Errorf("the request ended before the object was patched: %w", err)}
}

// runFailed is the error of a run of the files (apply.RunPatch): the
// request's end, or a result that does not encode.
func runFailed(ctx context.Context, err error) *Error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return canceled(err)
	}
	return EncodeFailed(err)
}

// checkNamespace refuses an object whose metadata.namespace, when set,
// differs from the request's namespace. Source ConfigMaps, tenant
// registries and values are chosen by the request's namespace: without
// this check a review claiming namespace B for an object of namespace A
// would carry B's data into A. With it, an answer holds only data of the
// object's own namespace and of the registry namespace, whoever asks.
func checkNamespace(requestNamespace string, obj map[string]any) *Error {
	meta, _ := obj["metadata"].(map[string]any)
	ns, set := meta["namespace"]
	if !set || ns == "" || ns == requestNamespace {
		return nil
	}
	return &Error{metrics.ReasonNamespaceMismatch, http.StatusBadRequest,
		fmt.Errorf("metadata.namespace %q of the object is not the request's namespace %q", ns, requestNamespace)}
}
