package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// maxWarnings bounds the warnings of one response; the API server shows
// them to the client.
const maxWarnings = 10

// Handler applies the registry to the objects of admission requests and
// answers with a JSONPatch.
type Handler struct {
	// Registry returns the current registry; nil until the first sync.
	Registry func() *Registry
	// RegistryNamespace is never patched, nor is kube-system.
	RegistryNamespace string
	// Operations are the operations that are patched; CREATE when empty.
	Operations []admissionv1.Operation
	// Strict denies an object that a file fails on, instead of admitting
	// it without that file's changes and a warning.
	Strict bool
	// Metrics, if set, records every request.
	Metrics *Metrics
}

var _ admission.Handler = (*Handler)(nil)

// Handle patches one object.
func (h *Handler) Handle(_ context.Context, req admission.Request) admission.Response {
	resp, result := h.handle(&req)
	if h.Metrics != nil {
		h.Metrics.Requests.WithLabelValues(result).Inc()
	}
	return resp
}

func (h *Handler) handle(req *admission.Request) (admission.Response, string) {
	if !h.patches(req) {
		return admission.Allowed(""), ResultUnchanged
	}
	reg := h.Registry()
	if reg == nil {
		return admission.Errored(http.StatusServiceUnavailable, errors.New("the kpatch registry has not synced yet")), ResultError
	}
	patches := reg.Patches(req.Kind.Kind)
	if len(patches) == 0 {
		return admission.Allowed(""), ResultUnchanged
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(req.Object.Raw, &obj); err != nil || obj == nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the object: %v", err)), ResultError
	}
	start := time.Now()
	out, err := kpatch.Apply(obj, patches, kpatch.ApplyOptions{Namespace: req.Namespace})
	if h.Metrics != nil {
		h.Metrics.ApplyDuration.Observe(time.Since(start).Seconds())
	}
	var warnings []string
	if err != nil {
		warnings = warningsOf(err)
		if h.Strict {
			return admission.Denied("kpatch: " + strings.Join(warnings, "; ")), ResultError
		}
	}
	resp := admission.Allowed("")
	result := ResultUnchanged
	if !sameContainer(out, obj) {
		ops, perr := createPatch(obj, out)
		if perr != nil {
			return admission.Errored(http.StatusInternalServerError, perr), ResultError
		}
		if len(ops) > 0 {
			patch, perr := encodePatch(ops)
			if perr != nil {
				return admission.Errored(http.StatusInternalServerError, perr), ResultError
			}
			patchType := admissionv1.PatchTypeJSONPatch
			resp.Patch, resp.PatchType = patch, &patchType
			result = ResultMutated
		}
	}
	if err != nil {
		result = ResultError
		resp = resp.WithWarnings(warnings...)
	}
	return resp, result
}

// patches reports whether the request is one the webhook patches: an
// operation it is configured for, outside the namespaces it never touches.
func (h *Handler) patches(req *admission.Request) bool {
	if req.Namespace == "kube-system" || req.Namespace != "" && req.Namespace == h.RegistryNamespace {
		return false
	}
	if len(req.Object.Raw) == 0 {
		return false
	}
	ops := h.Operations
	if len(ops) == 0 {
		ops = []admissionv1.Operation{admissionv1.Create}
	}
	for _, op := range ops {
		if op == req.Operation {
			return true
		}
	}
	return false
}

// warningsOf turns apply errors into admission warnings: file, line and
// reason.
func warningsOf(err error) []string {
	var list kpatch.ErrorList
	if !errors.As(err, &list) {
		return []string{"kpatch: " + err.Error()}
	}
	var out []string
	for i, e := range list {
		if i == maxWarnings {
			out = append(out, fmt.Sprintf("kpatch: and %d more errors", len(list)-maxWarnings))
			break
		}
		var ae *kpatch.ApplyError
		if errors.As(e, &ae) {
			out = append(out, fmt.Sprintf("kpatch: %s:%d: not applied: %s", ae.Pos.File, ae.Pos.Line, ae.Msg))
		} else {
			out = append(out, "kpatch: "+e.Error())
		}
	}
	return out
}
