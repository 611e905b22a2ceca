package admission

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/admit"
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/registry"
)

// AppliedAnnotation names on the object, with Handler.AnnotateApplied,
// the files that changed it: the same list as the audit annotation
// AuditApplied. Only the webhook writes it (annotated).
const AppliedAnnotation = admit.AppliedAnnotation

// The keys of the audit annotations of an answer; the API server records
// them in its audit log prefixed with the webhook's name
// (mutate.kpatch.dev/applied).
const (
	// AuditApplied lists the files that changed the object, in the order
	// they applied: configmap/key@version, ... (registry.Version).
	AuditApplied = "applied"
	// AuditWouldApply lists the files in audit mode that would have
	// changed it, in order.
	AuditWouldApply = "would-apply"
)

// maxFileListBytes bounds a list of files in an annotation: the files
// past it are counted ("and 3 more").
const maxFileListBytes = 4096

// fileList names the files of runs whose result is result, in order:
// configmap/key@version, separated by ", ", within maxFileListBytes.
// One allocation: the list is measured before it is written.
func fileList(reg *registry.Registry, runs []apply.FileRun, result string) string {
	const reserve = len(", and 99999 more")
	size, total := 0, 0
	for i := range runs {
		if runs[i].Result == result {
			total++
			size += len(", ") + len(runs[i].File.Name()) + len("@") + 12
		}
	}
	var b strings.Builder
	b.Grow(min(size, maxFileListBytes))
	written := 0
	for i := range runs {
		if runs[i].Result != result {
			continue
		}
		name := runs[i].File.Name()
		v := reg.Version(name)
		sep := ", "
		if written == 0 {
			sep = ""
		}
		n := b.Len() + len(sep) + len(name) + len("@") + len(v)
		if last := written == total-1; n > maxFileListBytes-reserve && !(last && n <= maxFileListBytes) {
			fmt.Fprintf(&b, "%sand %d more", sep, total-written)
			break
		}
		b.WriteString(sep)
		b.WriteString(name)
		if v != "" {
			b.WriteByte('@')
			b.WriteString(v)
		}
		written++
	}
	return b.String()
}

// auditAnnotations are those of an answer: the files that changed the
// object when the answer changes it (AuditApplied), and the files in
// audit mode that would have (AuditWouldApply); nil when there are none.
func auditAnnotations(reg *registry.Registry, run *apply.ObjectRun, changed bool) map[string]string {
	var out map[string]string
	if applied := fileList(reg, run.Files, apply.Patched); changed && applied != "" {
		out = map[string]string{AuditApplied: applied}
	}
	if would := fileList(reg, run.Files, apply.WouldPatch); would != "" {
		if out == nil {
			out = make(map[string]string, 1)
		}
		out[AuditWouldApply] = would
	}
	return out
}

// annotated returns run.Out with AppliedAnnotation as only the webhook
// writes it, or nil when run.Out holds it so already: the list of the
// files that changed the object when some did (changed), else as the
// stored object holds it (an UPDATE's old object; a CREATE's none), so
// that a value the request wrote is overwritten or removed. The
// annotation is left out when the object's annotations would pass the
// API server's limit; the reason is returned.
func annotated(reg *registry.Registry, req *admission.Request, run *apply.ObjectRun, changed bool) (map[string]any, string) {
	meta, ok := run.Out["metadata"].(map[string]any)
	if !ok {
		return nil, ""
	}
	annotations, isMap := meta["annotations"].(map[string]any)
	if v, set := meta["annotations"]; set && v != nil && !isMap {
		return nil, "" // not a map: the API server refuses the object anyway
	}
	current, has := annotations[AppliedAnnotation]
	var want string
	var set bool
	switch {
	case changed:
		want, set = fileList(reg, run.Files, apply.Patched), true
	case req.Operation == admissionv1.Update:
		want, set = storedApplied(req.OldObject.Raw)
	}
	if set && has && current == want || !set && !has {
		return nil, ""
	}
	next := maps.Clone(annotations)
	if next == nil {
		next = make(map[string]any, 1)
	}
	var why string
	delete(next, AppliedAnnotation)
	if set {
		if size := annotationsSize(next) + len(AppliedAnnotation) + len(want); size > apivalidation.TotalAnnotationSizeLimitB {
			why = fmt.Sprintf("the object's annotations would take %d bytes, past the API server's limit of %d", size, apivalidation.TotalAnnotationSizeLimitB)
			set = false
		}
	}
	if set {
		next[AppliedAnnotation] = want
	} else if !has {
		return nil, why
	}
	out := maps.Clone(run.Out)
	m := maps.Clone(meta)
	m["annotations"] = next
	out["metadata"] = m
	return out, why
}

// annotationsSize is the size of annotations as the API server counts
// it: keys and values.
func annotationsSize(annotations map[string]any) int {
	n := 0
	for k, v := range annotations {
		s, _ := v.(string)
		n += len(k) + len(s)
	}
	return n
}

// storedApplied returns the AppliedAnnotation of an UPDATE's old object:
// what the webhook wrote last.
func storedApplied(raw []byte) (string, bool) {
	var old struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &old) != nil {
		return "", false
	}
	v, ok := old.Metadata.Annotations[AppliedAnnotation]
	return v, ok
}

// logAudit logs what the files in audit mode would have done wrong: a
// failure of a file in audit mode changes nothing (no warning, never a
// denial), and is counted as failed.
func logAudit(log logr.Logger, run *apply.ObjectRun) {
	for _, f := range run.AuditProblems() {
		log.Info("a patch file in audit mode fails on the object: enforced, it would not apply", "file", f.File.Name(), "errors", admit.FailureMessages(f.Err))
	}
}
