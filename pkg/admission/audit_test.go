package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	jsonpatchv5 "github.com/evanphx/json-patch/v5"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/registry"
)

const (
	auditChanges   = "[deployment.web]\nreplicas: 3\n"
	auditUnchanged = "[deployment.web.containers.name=app]\nimage: nginx:1.25\n"
	auditWould     = "# kpatch:mode: audit\n[deployment.web]\nlabels.audit: \"yes\"\n"
	auditFails     = "# kpatch:mode: audit\n[deployment.web]\nmetadata.ownerReferences[name=missing].uid: x\n"
)

func auditHandler(t *testing.T) *Handler {
	return newHandler(t, map[string]string{"a.kpatch": auditChanges, "b.kpatch": auditUnchanged, "c.kpatch": auditWould, "d.kpatch": auditFails})
}

// TestAuditAnnotationsNameTheFiles: an answer that changes the object
// names, in its audit annotations, the files that changed it and the
// files in audit mode that would have, each at its version, and not the
// file that changed nothing; the audit files change nothing, are counted
// would-patch, and their failure is neither a warning nor, under
// --strict, a denial.
func TestAuditAnnotationsNameTheFiles(t *testing.T) {
	for _, strict := range []bool{false, true} {
		h := auditHandler(t)
		h.Strict = strict
		resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
		if !resp.Allowed || len(resp.Warnings) != 0 {
			t.Fatalf("strict %v: response %+v", strict, resp.AdmissionResponse)
		}
		want := map[string]string{
			AuditApplied:    "reg/a.kpatch@" + registry.Version(auditChanges),
			AuditWouldApply: "reg/c.kpatch@" + registry.Version(auditWould),
		}
		if fmt.Sprint(resp.AuditAnnotations) != fmt.Sprint(want) {
			t.Errorf("audit annotations %v, want %v", resp.AuditAnnotations, want)
		}
		if ops := patchOf(t, resp); len(ops) != 1 || ops[0].Path != "/spec/replicas" {
			t.Errorf("patch %v, want replicas alone: audit files change nothing", ops)
		}
		for file, result := range map[string]string{"reg/a.kpatch": apply.Patched, "reg/b.kpatch": apply.Unchanged, "reg/c.kpatch": apply.WouldPatch, "reg/d.kpatch": apply.Failed} {
			if n := testutil.ToFloat64(h.Metrics.FileApplications.WithLabelValues(file, result)); n != 1 {
				t.Errorf("%s %s counted %v, want 1", file, result, n)
			}
		}
	}
}

// TestAuditAnnotationsUnchanged: an answer that changes nothing carries no
// applied list; the files in audit mode that would have changed it are
// still named.
func TestAuditAnnotationsUnchanged(t *testing.T) {
	h := newHandler(t, map[string]string{"b.kpatch": auditUnchanged, "c.kpatch": auditWould})
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if len(resp.Patch) != 0 || resp.AuditAnnotations[AuditApplied] != "" || resp.AuditAnnotations[AuditWouldApply] == "" {
		t.Errorf("response %+v", resp.AdmissionResponse)
	}
}

// annotationsAfter returns the object's annotations once the response's
// patch is applied, as the API server applies it.
func annotationsAfter(t *testing.T, raw string, patch []byte) map[string]any {
	t.Helper()
	out := []byte(raw)
	if len(patch) > 0 {
		var err error
		p, err := jsonpatchv5.DecodePatch(patch)
		if err == nil {
			out, err = p.Apply(out)
		}
		if err != nil {
			t.Fatalf("the API server would refuse the patch: %v\n%s", err, patch)
		}
	}
	var obj struct {
		Metadata struct {
			Annotations map[string]any `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(out, &obj); err != nil {
		t.Fatal(err)
	}
	return obj.Metadata.Annotations
}

// TestAnnotateApplied: with AnnotateApplied the object gets
// kpatch.dev/applied, the list of the files that changed it, whether it
// has annotations or not; a value the request wrote is overwritten, or
// removed when no file changed the object (a CREATE), or set back to
// the stored object's (an UPDATE), even on an object no file targets.
func TestAnnotateApplied(t *testing.T) {
	list := "reg/a.kpatch@" + registry.Version(auditChanges)
	withAnnotations := func(kind, name, annotations string) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":%q,"metadata":{"name":%q,"namespace":"shop"%s},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}}}}`,
			kind, name, annotations)
	}
	tests := []struct {
		name, raw, old string
		op             admissionv1.Operation
		want           any // the annotation's value after the patch, nil: absent
	}{
		{"no annotations", deploymentJSON, "", admissionv1.Create, list},
		{"other annotations", withAnnotations("Deployment", "web", `,"annotations":{"team":"a"}`), "", admissionv1.Create, list},
		{"forged, overwritten", withAnnotations("Deployment", "web", `,"annotations":{"kpatch.dev/applied":"reg/z.kpatch@0"}`), "", admissionv1.Create, list},
		{"forged, no file changed it", withAnnotations("Deployment", "other", `,"annotations":{"kpatch.dev/applied":"reg/z.kpatch@0"}`), "", admissionv1.Create, nil},
		{"forged, no file targets it", withAnnotations("ConfigMap", "c", `,"annotations":{"kpatch.dev/applied":"x"}`), "", admissionv1.Create, nil},
		{"update keeps the stored value", withAnnotations("Deployment", "other", `,"annotations":{"kpatch.dev/applied":"forged"}`),
			withAnnotations("Deployment", "other", `,"annotations":{"kpatch.dev/applied":"`+list+`"}`), admissionv1.Update, list},
		{"update unchanged", withAnnotations("Deployment", "other", `,"annotations":{"kpatch.dev/applied":"kept"}`),
			withAnnotations("Deployment", "other", `,"annotations":{"kpatch.dev/applied":"kept"}`), admissionv1.Update, "kept"},
		{"update, none stored", withAnnotations("Deployment", "other", `,"annotations":{"kpatch.dev/applied":"forged"}`),
			withAnnotations("Deployment", "other", ``), admissionv1.Update, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(t, map[string]string{"a.kpatch": auditChanges, "b.kpatch": auditUnchanged})
			h.AnnotateApplied = true
			h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
			req := request(tt.op, "shop", tt.raw)
			req.OldObject = runtime.RawExtension{Raw: []byte(tt.old)}
			resp := h.Handle(context.Background(), req)
			if !resp.Allowed {
				t.Fatalf("response %+v", resp.AdmissionResponse)
			}
			got, ok := annotationsAfter(t, tt.raw, resp.Patch)[AppliedAnnotation]
			if tt.want == nil && ok || tt.want != nil && got != tt.want {
				t.Errorf("%s = %v (set %v), want %v; patch %s", AppliedAnnotation, got, ok, tt.want, resp.Patch)
			}
		})
	}
}

// TestAnnotateAppliedOff: without AnnotateApplied the webhook leaves the
// annotation alone.
func TestAnnotateAppliedOff(t *testing.T) {
	h := newHandler(t, map[string]string{"a.kpatch": auditChanges})
	raw := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"shop","annotations":{"kpatch.dev/applied":"x"}}}`
	if resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", raw)); len(resp.Patch) != 0 {
		t.Errorf("patch %s", resp.Patch)
	}
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if _, ok := annotationsAfter(t, deploymentJSON, resp.Patch)[AppliedAnnotation]; ok {
		t.Errorf("annotated without AnnotateApplied: %s", resp.Patch)
	}
}

// TestAnnotateAppliedWithinTheLimit: the annotation is left out where the
// object's annotations would pass the API server's limit, which would
// refuse the answer; the object is still patched.
func TestAnnotateAppliedWithinTheLimit(t *testing.T) {
	h := newHandler(t, map[string]string{"a.kpatch": auditChanges})
	h.AnnotateApplied = true
	big := strings.Repeat("x", 256*1024-10)
	raw := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","annotations":{"big":"` + big + `"}},"spec":{"replicas":1}}`
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", raw))
	if !resp.Allowed || len(resp.Patch) == 0 {
		t.Fatalf("response %+v", resp.AdmissionResponse)
	}
	if _, ok := annotationsAfter(t, raw, resp.Patch)[AppliedAnnotation]; ok {
		t.Error("annotated past the limit")
	}
	if resp.AuditAnnotations[AuditApplied] == "" {
		t.Error("the audit annotation is left out too")
	}
}

// TestFileListBounded: a list of many files stays within its bound and
// counts the files it leaves out.
func TestFileListBounded(t *testing.T) {
	var runs []apply.FileRun
	reg := registry.NewRegistry(nil)
	for i := range 500 {
		runs = append(runs, apply.FileRun{File: namedFile{name: fmt.Sprintf("configmap-%03d/file-%03d.kpatch", i, i)}, Result: apply.Patched})
	}
	s := fileList(reg, runs, apply.Patched)
	if len(s) > maxFileListBytes || !strings.HasSuffix(s, " more") || !strings.HasPrefix(s, "configmap-000/file-000.kpatch, ") {
		t.Errorf("list of %d bytes: %.60q...%q", len(s), s, s[max(0, len(s)-30):])
	}
	mixed := append([]apply.FileRun{{File: namedFile{name: "x/unchanged.kpatch"}, Result: apply.Unchanged}}, runs[:2]...)
	if s := fileList(reg, mixed, apply.Patched); s != "configmap-000/file-000.kpatch, configmap-001/file-001.kpatch" {
		t.Errorf("list %q", s)
	}
}

// namedFile is a file that has a name alone.
type namedFile struct {
	apply.File
	name string
}

func (f namedFile) Name() string { return f.name }
