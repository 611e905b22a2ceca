package admission

import (
	"context"
	"errors"
	"runtime/debug"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/pkg/replacement"
)

// replacementRun runs the replacements files of a registry on one
// admitted object: the object is their only target, their sources are
// the object, its Namespace and the labelled ConfigMaps of its namespace,
// then of the registry namespace (read once, when a file first needs
// them). A nil *replacementRun has no replacements files: every patch is
// a patch file.
type replacementRun struct {
	reg       *registry.Registry
	h         *Handler
	namespace string
	gathered  bool
	sources   []map[string]any // the Namespace, the namespace's ConfigMaps
	fallback  []map[string]any // the registry namespace's ConfigMaps
}

// replacementRun returns the run of reg's replacements files on an
// object of namespace, nil when reg has none.
func (h *Handler) replacementRun(reg *registry.Registry, namespace string) *replacementRun {
	if !reg.HasReplacements() {
		return nil
	}
	return &replacementRun{reg: reg, h: h, namespace: namespace}
}

// of returns the replacements p stands for, nil for a patch file.
func (rr *replacementRun) of(p *kpatch.Patch) *replacement.Replacements {
	if rr == nil {
		return nil
	}
	return rr.reg.Replacements(p)
}

// targets reports whether the file p addresses the object obj (whose
// reference is ref): a header of a patch file, a target's select of a
// replacements file.
func (rr *replacementRun) targets(p *kpatch.Patch, obj map[string]any, ref *kpatch.ObjectRef) bool {
	if r := rr.of(p); r != nil {
		return r.Targets(obj, rr.namespace)
	}
	return p.Targets(ref)
}

// applyFile applies one file (the only patch of one) to obj: a patch
// file through applyFile, a replacements file's replacements with the
// run's sources, turning a panic into a *PanicError.
func (rr *replacementRun) applyFile(ctx context.Context, one []*kpatch.Patch, obj map[string]any, opts kpatch.ApplyOptions) (out map[string]any, err error) {
	r := rr.of(one[0])
	if r == nil {
		return applyFile(ctx, one, obj, opts)
	}
	defer func() {
		if v := recover(); v != nil {
			out, err = obj, &PanicError{File: r.Name(), Value: v, Stack: debug.Stack()}
		}
	}()
	rr.gather()
	fallback := rr.fallback
	if rr.reg.IsTenantFile(one[0]) {
		fallback = nil // a tenant reads its own namespace's sources only
	}
	out, err = r.ApplyObject(obj, rr.sources, replacement.ObjectOptions{Namespace: rr.namespace, Fallback: fallback})
	return out, replacementErrors(err)
}

// gather reads the sources once: the object's Namespace and the labelled
// ConfigMaps, from the handler's caches, shared and never modified.
func (rr *replacementRun) gather() {
	if rr.gathered {
		return
	}
	rr.gathered = true
	if view, ok := rr.h.namespaceView(rr.namespace); ok {
		rr.sources = append(rr.sources, view.object())
	}
	if rr.h.Sources != nil {
		if rr.namespace != "" {
			rr.sources = append(rr.sources, rr.h.Sources.ConfigMaps(rr.namespace)...)
		}
		rr.fallback = rr.h.Sources.ConfigMaps(rr.h.RegistryNamespace)
	}
}

// ReplacementError is a replacement that failed on an admitted object.
// Skipped says that its source could not be resolved (nothing or several
// objects selected, a missing field): that replacement is not applied and
// the file's others are; otherwise the whole file is not applied.
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

// replacementErrors turns ApplyObject's errors into *ReplacementError
// values, in a kpatch.ErrorList.
func replacementErrors(err error) error {
	var list kpatch.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	out := make(kpatch.ErrorList, 0, len(list))
	for _, e := range list {
		var re *replacement.Error
		if !errors.As(e, &re) {
			out = append(out, e)
			continue
		}
		out = append(out, &ReplacementError{Err: re, Skipped: errors.Is(re, replacement.ErrSource)})
	}
	return out
}

// skippedOnly reports whether err only says that replacements were
// skipped for unresolved sources: the file applied its other
// replacements.
func skippedOnly(err error) bool {
	var list kpatch.ErrorList
	if err == nil || !errors.As(err, &list) || len(list) == 0 {
		return false
	}
	for _, e := range list {
		var re *ReplacementError
		if !errors.As(e, &re) || !re.Skipped {
			return false
		}
	}
	return true
}
