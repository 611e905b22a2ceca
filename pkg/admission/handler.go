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
	logf "sigs.k8s.io/controller-runtime/pkg/log"
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
	// OnError is the answer to an internal error; allow when empty.
	OnError ErrorPolicy
	// Metrics, if set, records every request.
	Metrics *Metrics
}

var _ admission.Handler = (*Handler)(nil)

// Handle patches one object. It logs through the logger of ctx
// (logf.FromContext), which LogConstructor gives the request's kind,
// namespace and name.
func (h *Handler) Handle(ctx context.Context, req admission.Request) admission.Response {
	resp, result := h.handle(ctx, &req)
	if h.Metrics != nil {
		h.Metrics.Requests.WithLabelValues(result).Inc()
	}
	return resp
}

func (h *Handler) handle(ctx context.Context, req *admission.Request) (admission.Response, string) {
	log := logf.FromContext(ctx)
	if !h.patches(req) {
		return admission.Allowed(""), ResultUnchanged
	}
	reg := h.Registry()
	if reg == nil {
		log.Error(errNotSynced, "not patched")
		return admission.Errored(http.StatusServiceUnavailable, errNotSynced), ResultError
	}
	patches := reg.Patches(req.Kind.Kind)
	if len(patches) == 0 {
		return admission.Allowed(""), ResultUnchanged
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(req.Object.Raw, &obj); err != nil || obj == nil {
		log.Error(err, "not patched: the object does not decode")
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the object: %v", err)), ResultError
	}
	start := time.Now()
	out, err := kpatch.Apply(obj, patches, kpatch.ApplyOptions{Namespace: req.Namespace})
	if h.Metrics != nil {
		h.Metrics.ApplyDuration.Observe(time.Since(start).Seconds())
	}
	var messages []string
	if err != nil {
		messages = failureMessages(err)
		if h.Strict {
			log.Info("denied: a patch file fails on the object", "errors", messages)
			return admission.Denied(prefix + strings.Join(messages, "; ")), ResultError
		}
		log.Info("admitted without the patch files that fail on it", "errors", messages)
	}
	resp := admission.Allowed("")
	result := ResultUnchanged
	if !sameContainer(out, obj) {
		ops, perr := createPatch(obj, out)
		if perr != nil {
			log.Error(perr, "not patched: computing the JSONPatch")
			return admission.Errored(http.StatusInternalServerError, perr), ResultError
		}
		if len(ops) > 0 {
			patch, perr := encodePatch(ops)
			if perr != nil {
				log.Error(perr, "not patched: encoding the JSONPatch")
				return admission.Errored(http.StatusInternalServerError, perr), ResultError
			}
			patchType := admissionv1.PatchTypeJSONPatch
			resp.Patch, resp.PatchType = patch, &patchType
			result = ResultMutated
		}
	}
	if err != nil {
		result = ResultError
		resp = resp.WithWarnings(warnings(messages)...)
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

// prefix starts every warning and denial message, once.
const prefix = "kpatch: "

var errNotSynced = errors.New("the registry has not synced yet")

// failureMessages describes apply errors, one message per error: file,
// line and reason, without the prefix.
func failureMessages(err error) []string {
	var list kpatch.ErrorList
	if !errors.As(err, &list) {
		return []string{err.Error()}
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		var ae *kpatch.ApplyError
		if errors.As(e, &ae) {
			out = append(out, fmt.Sprintf("%s:%d: not applied: %s", ae.Pos.File, ae.Pos.Line, ae.Msg))
		} else {
			out = append(out, e.Error())
		}
	}
	return out
}

// warnings turns messages into admission warnings, each with the prefix,
// at most maxWarnings of them.
func warnings(messages []string) []string {
	out := make([]string, 0, min(len(messages), maxWarnings+1))
	for i, m := range messages {
		if i == maxWarnings {
			out = append(out, fmt.Sprintf("%sand %d more errors", prefix, len(messages)-maxWarnings))
			break
		}
		out = append(out, prefix+m)
	}
	return out
}
