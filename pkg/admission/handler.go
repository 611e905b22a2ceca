package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/internal/objectjson"
	"kpatch.dev/kpatch/pkg/admit"
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/drift"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/pkg/schema"
)

// MutatePath is where the webhook serves the Handler: the mutating
// webhook of the objects the registry patches.
const MutatePath = "/mutate"

// maxWarnings bounds the warnings of one response; the API server shows
// them to the client.
const maxWarnings = 10

// Handler applies the registry to the objects of admission requests and
// answers with a JSONPatch.
type Handler struct {
	// Registry returns the current registry; nil until the first sync,
	// when a request is answered by OnError (served by the webhook, such
	// a request never reaches the Handler: WithRegistrySynced answers
	// 503).
	Registry func() *registry.Registry
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
	Metrics *metrics.Metrics
	// Budget bounds the work of each file on one object (items visited,
	// bytes written); past it the file is not applied, with a warning.
	// The request's deadline bounds them all. The zero value is
	// DefaultBudget.
	Budget kpatch.Budget
	// Namespaces, if set, gives the Namespace of each admitted object
	// (per-namespace values, the ${namespace.*} built-ins, replacement
	// sources); nil when the webhook reads no Namespace.
	Namespaces informed.Namespaces
	// Sources, if set, gives the ConfigMaps labelled kpatch.dev/source=true
	// that replacements read at admission; nil when there are none.
	Sources informed.Sources
	// AnnotateApplied writes AppliedAnnotation on the objects files
	// changed, and keeps any other value of it out of every object the
	// webhook patches (annotated).
	AnnotateApplied bool
	// Events, if set, records an Event per object files changed.
	Events *PatchEvents
	// ConditionBudget is the CEL cost that the conditions (# kpatch:when:)
	// of one owner's files (the admin's, or one tenant's) may spend
	// together on one object, each run of the files; past it the files
	// whose conditions are left are left out, and the object is answered
	// as an internal error (OnError; denied under Strict). 0 is
	// condition.RequestBudget, the API server's budget of one admission
	// policy.
	ConditionBudget uint64
	// Schemas holds every answer to what the API server accepts for the
	// object's kind: a file whose changes it would refuse is left out of
	// the object, with a warning (denied when Strict). Nil checks the
	// built-in kinds only; with CRDs set, custom resources too.
	Schemas *schema.Checker
}

// builtinSchemas checks the built-in kinds: Handler.Schemas when nil.
var builtinSchemas = &schema.Checker{}

func (h *Handler) schemas() *schema.Checker {
	if h.Schemas == nil {
		return builtinSchemas
	}
	return h.Schemas
}

// DefaultBudget is the work one file may do on one object: a million
// items visited (a 200,000-container Pod patched field by field is about
// 1.2 million) and 8 MiB of values written.
var DefaultBudget = kpatch.Budget{Items: 1_000_000, OutputBytes: 8 << 20}

func (h *Handler) budget() kpatch.Budget {
	if h.Budget == (kpatch.Budget{}) {
		return DefaultBudget
	}
	return h.Budget
}

var _ admission.Handler = (*Handler)(nil)

// Handle patches one object. It logs through the logger of ctx
// (logf.FromContext), which LogConstructor gives the request's kind,
// namespace and name, and stops when ctx ends. Internal errors, panics
// included, are answered by OnError.
func (h *Handler) Handle(ctx context.Context, req admission.Request) (resp admission.Response) {
	log, err := logr.FromContext(ctx)
	if err != nil {
		log = logf.Log // as logf.FromContext, without its WithValues' allocation
	}
	result := metrics.ResultUnchanged
	defer func() {
		if r := recover(); r != nil {
			h.Metrics.Panic(metrics.PanicScopeRequest)
			log.Error(fmt.Errorf("panic: %v", r), "recovered a panic", "stack", string(debug.Stack()))
			resp, result = h.answerInternal(log, panicked(r))
		}
		h.Metrics.Request(result)
	}()
	resp, result = h.handle(ctx, log, &req)
	return resp
}

func (h *Handler) handle(ctx context.Context, log logr.Logger, req *admission.Request) (admission.Response, string) {
	if !h.patches(req) {
		return admission.Allowed(""), metrics.ResultUnchanged
	}
	var reg admit.Registry // nil until the first sync
	current := h.Registry()
	if current != nil {
		reg = current
	}
	p := h.policy()
	res := admit.Admit(ctx, log, &p, reg, &admit.Object{
		Kind: req.Kind.Kind, Namespace: req.Namespace, Name: req.Name, Operation: string(req.Operation),
		Raw: req.Object.Raw, OldRaw: req.OldObject.Raw,
	}, &req.AdmissionRequest)
	defer func() {
		if r := recover(); r != nil {
			// Handle logs r, which may reach the object: its maps stay
			// lent (the garbage collector takes them), never reused
			// while the log reads them.
			panic(r)
		}
		res.Release() // after the JSONPatch: nothing keeps the object
	}()
	if res.Ran {
		h.Metrics.Applied(res.Took)
	}
	if res.Err != nil {
		return h.answerInternal(log, res.Err)
	}
	if res.Run == nil {
		return admission.Allowed(""), metrics.ResultUnchanged
	}
	run, patch := res.Run, res.Patch
	h.Metrics.FileRuns(run.Files)
	logAudit(log, run)
	changed := patch != nil
	if h.AnnotateApplied {
		out, why := annotated(current, req, run, changed)
		if why != "" {
			log.Info("the annotation "+AppliedAnnotation+" is left out", "reason", why)
		}
		if out != nil {
			run.Out = out
			var err error
			if patch, err = objectjson.JSONPatch(run.In, run.Out); err != nil {
				return h.answerInternal(log, admit.EncodeFailed(err))
			}
		}
	}
	resp, result := h.answer(log, &res, patch)
	if resp.Allowed {
		resp.AuditAnnotations = auditAnnotations(current, run, changed)
		if changed {
			h.Events.patched(req, run, current)
		}
	}
	return resp, result
}

// policy is how the Handler admits objects.
func (h *Handler) policy() admit.Policy {
	return admit.Policy{RegistryNamespace: h.RegistryNamespace, Cluster: (*informedCluster)(h), Budget: h.budget(),
		Valid: h.schemas(), ConditionBudget: h.ConditionBudget, AnnotateApplied: h.AnnotateApplied}
}

// StoredAdmitter is the drift scan's drift.Admitter: it admits a stored
// object as the Handler answers an UPDATE of it by user (the webhook's
// ServiceAccount) that changes nothing, the old object and the new being
// the object, with the Handler's policy (files, values, budgets,
// conditions, schemas), and says which files would change it and which
// fields (drift.Observer). A Handler that does not patch UPDATE
// (Operations) changes no stored object: every object is as it would
// make it.
func (h *Handler) StoredAdmitter(user authenticationv1.UserInfo, log logr.Logger) drift.Admitter {
	return drift.AdmitterFunc(func(ctx context.Context, kind drift.Kind, obj map[string]any) (drift.Admission, error) {
		if !h.patchesOperation(admissionv1.Update) {
			return drift.Admission{}, nil
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			return drift.Admission{}, fmt.Errorf("encode %s: %w", kind.Kind, err)
		}
		meta, _ := obj["metadata"].(map[string]any)
		ns, _ := meta["namespace"].(string)
		name, _ := meta["name"].(string)
		gvk := metav1.GroupVersionKind{Group: kind.Group, Version: kind.Version, Kind: kind.Kind}
		gvr := metav1.GroupVersionResource{Group: kind.Group, Version: kind.Version, Resource: kind.Resource}
		req := admissionv1.AdmissionRequest{Kind: gvk, Resource: gvr, RequestKind: &gvk, RequestResource: &gvr,
			Namespace: ns, Name: name, Operation: admissionv1.Update, UserInfo: user, DryRun: &dryRun,
			Object: runtime.RawExtension{Raw: raw}, OldObject: runtime.RawExtension{Raw: raw}}
		var reg admit.Registry // nil until the first sync
		if current := h.Registry(); current != nil {
			reg = current
		}
		var obs drift.Observer
		p := h.policy()
		p.Observer = &obs
		res := admit.Admit(ctx, log, &p, reg, &admit.Object{Kind: kind.Kind, Namespace: ns, Name: name,
			Operation: string(admissionv1.Update), Raw: raw, OldRaw: raw}, &req)
		defer res.Release()
		if res.Err != nil {
			return drift.Admission{}, res.Err
		}
		return storedAdmission(res.Run, res.Patch, obs.Files())
	})
}

// dryRun is the dry run of the drift scan's requests: nothing is stored.
var dryRun = true

// storedAdmission is what the answer of a run with patch would change of
// a stored object: the files of the run that patched it or that an UPDATE
// leaves out for a field it may not change, as observed, and the paths
// of the patch.
func storedAdmission(run *apply.ObjectRun, patch []byte, observed []drift.FileChange) (drift.Admission, error) {
	var adm drift.Admission
	if run == nil {
		return adm, nil
	}
	if patch != nil {
		var ops []struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(patch, &ops); err != nil {
			return adm, fmt.Errorf("read the answer's JSONPatch: %w", err)
		}
		for _, op := range ops {
			adm.Ops = append(adm.Ops, op.Path)
		}
	}
	for _, c := range observed {
		if c.Immutable != "" || patch != nil {
			adm.Files = append(adm.Files, c)
		}
	}
	return adm, nil
}

// answer admits the object with its JSONPatch and a warning per failing
// file and per ${required} field that nothing set (admit.Result's
// Messages), or, in strict mode, denies it if there is any.
func (h *Handler) answer(log logr.Logger, res *admit.Result, patch []byte) (admission.Response, string) {
	for _, f := range res.Problems {
		var pe *apply.PanicError
		if errors.As(f.Err, &pe) {
			h.Metrics.Panic(metrics.PanicScopeFile)
			log.Error(pe, "recovered a panic of a patch file", "file", f.File.Name(), "stack", string(pe.Stack))
		}
	}
	messages := res.Messages
	if res.BudgetSpent {
		h.Metrics.InternalError(metrics.ReasonBudgetSpent)
		if h.OnError == ErrorPolicyDeny && !h.Strict {
			log.Info("denied: a CEL budget was spent before a file's conditions (onError deny)", "errors", messages)
			return admission.Denied(prefix + strings.Join(bounded(messages), "; ")), metrics.ResultError
		}
	}
	if len(messages) > 0 && h.Strict {
		log.Info("denied: a patch file fails on the object", "errors", messages)
		return admission.Denied(prefix + strings.Join(bounded(messages), "; ")), metrics.ResultError
	}
	resp, result := admission.Allowed(""), metrics.ResultUnchanged
	if patch != nil {
		resp.Patch, resp.PatchType = patch, &jsonPatchType
		result = metrics.ResultMutated
	}
	if len(messages) > 0 {
		log.Info("admitted without the patch files that fail on it", "errors", messages)
		resp, result = resp.WithWarnings(warnings(messages)...), metrics.ResultError
	}
	return resp, result
}

// patches reports whether the request is one the webhook patches: an
// operation it is configured for, on an object itself (not a subresource
// such as status or scale); admit.Admit leaves the namespaces it never
// touches.
func (h *Handler) patches(req *admission.Request) bool {
	if len(req.Object.Raw) == 0 || req.SubResource != "" {
		return false
	}
	return h.patchesOperation(req.Operation)
}

// patchesOperation reports whether op is one of the Handler's
// Operations.
func (h *Handler) patchesOperation(op admissionv1.Operation) bool {
	ops := h.Operations
	if len(ops) == 0 {
		ops = []admissionv1.Operation{admissionv1.Create}
	}
	return slices.Contains(ops, op)
}

// informedCluster is the cluster the Handler admits objects in
// (admit.Cluster): the Namespaces and source ConfigMaps of its caches.
type informedCluster Handler

var _ admit.Cluster = (*informedCluster)(nil)

// Namespace is the Namespace named name from the Handler's cache, with
// its annotations values.kpatch.dev/ parsed once per version.
func (c *informedCluster) Namespace(name string) (admit.Namespace, bool) {
	if view, ok := informed.View(c.Namespaces, name); ok {
		return view, true
	}
	return nil, false
}

// Read returns the Namespace and the labelled ConfigMaps of namespace,
// then, as fallback, those of the registry namespace, from the Handler's
// caches, shared and never modified.
func (c *informedCluster) Read(namespace string) (sources, fallback []map[string]any) {
	if view, ok := informed.View(c.Namespaces, namespace); ok {
		sources = append(sources, view.Object())
	}
	if c.Sources != nil {
		if namespace != "" {
			sources = append(sources, c.Sources.ConfigMaps(namespace)...)
		}
		fallback = c.Sources.ConfigMaps(c.RegistryNamespace)
	}
	return sources, fallback
}

// jsonPatchType is the patch type of every answer with a patch, shared:
// nothing writes a response's patch type.
var jsonPatchType = admissionv1.PatchTypeJSONPatch

// prefix starts every warning and denial message, once.
const prefix = "kpatch: "

// bounded keeps the first maxWarnings messages and says how many more
// there are: warnings and denials reach the client.
func bounded(messages []string) []string {
	if len(messages) <= maxWarnings {
		return messages
	}
	return append(slices.Clip(messages[:maxWarnings]), fmt.Sprintf("and %d more errors", len(messages)-maxWarnings))
}

// warnings turns messages into admission warnings, each with the prefix.
func warnings(messages []string) []string {
	out := bounded(messages)
	for i, m := range out {
		out[i] = prefix + m
	}
	return out
}
