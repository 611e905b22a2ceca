package admission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// replFile copies the Deployment's own image tag into an env var, a
// source ConfigMap's value into another, and a label of its Namespace
// into a label.
const replFile = `replacements:
- source:
    kind: Deployment
    fieldPath: spec.template.spec.containers.[name=app].image
    options: {delimiter: ':', index: 1}
  targets:
  - select: {kind: Deployment}
    fieldPaths:
    - spec.template.spec.containers.[name=app].env.[name=VERSION].value
    options: {create: true}
- source: {kind: ConfigMap, name: settings, fieldPath: data.region}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.annotations.region]
    options: {create: true}
- source: {kind: Namespace, fieldPath: metadata.labels.team}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.labels.team]
    options: {create: true}
`

// sourceCM is a source ConfigMap of namespace.
func sourceCM(namespace, region string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: namespace, Labels: map[string]string{informed.SourceLabel: "true"}},
		Data:       map[string]string{"region": region},
	}
}

// replHandler is a handler of files with the Namespace shop (team
// checkout) and the given source ConfigMaps.
func replHandler(t *testing.T, files map[string]string, cms ...*corev1.ConfigMap) *Handler {
	t.Helper()
	h := newHandler(t, files)
	h.Namespaces = informed.NamespacesFunc(func(name string) (*corev1.Namespace, bool) {
		if name != "shop" {
			return nil, false
		}
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"team": "checkout"}}}, true
	})
	var s informed.SourceConfigMaps
	for _, cm := range cms {
		s.OnAdd(cm, true)
	}
	h.Sources = &s
	return h
}

// changes returns the response's JSONPatch as "op path=value" lines,
// sorted (the order of a map's fields is not the JSONPatch's concern).
func changes(t *testing.T, h *Handler, raw string) ([]string, admissionResponse) {
	t.Helper()
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", raw))
	var out []string
	for _, op := range patchOf(t, resp) {
		out = append(out, fmt.Sprintf("%s %s=%v", op.Operation, op.Path, op.Value))
	}
	slices.Sort(out)
	return out, admissionResponse{resp.Allowed, resp.Warnings, resp.Result}
}

type admissionResponse struct {
	allowed  bool
	warnings []string
	result   *metav1.Status
}

// TestReplacementsAtAdmission copies from the object itself, a source
// ConfigMap of its namespace and its Namespace, and counts the file as
// patched.
func TestReplacementsAtAdmission(t *testing.T) {
	h := replHandler(t, map[string]string{"repl.yaml": replFile}, sourceCM("shop", "eu-west-1"), sourceCM("kpatch-system", "us-east-1"))
	got, resp := changes(t, h, deploymentJSON)
	want := []string{
		"add /metadata/annotations=map[region:eu-west-1]",
		"add /metadata/labels=map[team:checkout]",
		"add /spec/template/spec/containers/0/env=[map[name:VERSION value:1.25]]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || !resp.allowed || len(resp.warnings) != 0 {
		t.Fatalf("got %v %+v, want %v", got, resp, want)
	}
	if n := testutil.ToFloat64(h.Metrics.FileApplications.WithLabelValues("reg/repl.yaml", apply.Patched)); n != 1 {
		t.Errorf("patched applications %v", n)
	}
}

// TestReplacementsRegistryNamespaceFallback reads a source ConfigMap of
// the registry namespace when the object's namespace has none of that
// name.
func TestReplacementsRegistryNamespaceFallback(t *testing.T) {
	h := replHandler(t, map[string]string{"repl.yaml": replFile}, sourceCM("kpatch-system", "us-east-1"), sourceCM("other", "ap-south-1"))
	got, _ := changes(t, h, deploymentJSON)
	if !strings.Contains(strings.Join(got, "\n"), "region:us-east-1") {
		t.Errorf("want the registry namespace's region: %v", got)
	}
}

// TestReplacementsUnresolvedSource skips the replacement whose source is
// not there, with a warning; the others apply. Strict mode denies.
func TestReplacementsUnresolvedSource(t *testing.T) {
	h := replHandler(t, map[string]string{"repl.yaml": replFile}, sourceCM("other", "ap-south-1"))
	got, resp := changes(t, h, deploymentJSON)
	if len(got) != 2 || !resp.allowed {
		t.Fatalf("want the image tag and the team only: %v %+v", got, resp)
	}
	want := "kpatch: reg/repl.yaml:11:11: replacement not applied: nothing selected by ConfigMap.[noVer].[noGrp]/settings.[noNs]:data.region"
	if len(resp.warnings) != 1 || resp.warnings[0] != want {
		t.Errorf("warnings %q, want %q", resp.warnings, want)
	}
	if n := testutil.ToFloat64(h.Metrics.FileApplications.WithLabelValues("reg/repl.yaml", apply.Patched)); n != 1 {
		t.Errorf("a file that applied its other replacements is patched: %v", n)
	}
	h.Strict = true
	if _, resp := changes(t, h, deploymentJSON); resp.allowed || !strings.Contains(resp.result.Message, "nothing selected") {
		t.Errorf("strict: %+v", resp)
	}
}

// TestReplacementsFileAtomic: a target that fails leaves the object
// without any of the file's changes, with a warning; the file fails.
func TestReplacementsFileAtomic(t *testing.T) {
	h := replHandler(t, map[string]string{"repl.yaml": replFile + `- sourceValue: x
  targets:
  - select: {kind: Deployment}
    fieldPaths:
    - spec.template.spec.containers.[name=missing].image
`}, sourceCM("shop", "eu-west-1"))
	got, resp := changes(t, h, deploymentJSON)
	if len(got) != 0 || !resp.allowed || len(resp.warnings) != 1 ||
		!strings.HasPrefix(resp.warnings[0], "kpatch: reg/repl.yaml:25:7: not applied: Deployment shop/web: unable to find field") {
		t.Fatalf("got %v %+v", got, resp)
	}
	if n := testutil.ToFloat64(h.Metrics.FileApplications.WithLabelValues("reg/repl.yaml", apply.Failed)); n != 1 {
		t.Errorf("failed applications %v", n)
	}
}

// TestReplacementsRegistryOrder: files apply in registry order, a
// replacements file (ranked kind.* by its select) seeing what the files
// before it wrote, and the files after it seeing its result.
func TestReplacementsRegistryOrder(t *testing.T) {
	h := replHandler(t, map[string]string{
		"a-tag.kpatch": "[deployment.*.containers.name=app]\nimage.tag: \"1.27\"\n",
		"b-repl.yaml": `replacements:
- source: {kind: Deployment, fieldPath: spec.template.spec.containers.0.image, options: {delimiter: ':', index: 1}}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.labels.version, metadata.annotations.tag]
    options: {create: true}
`,
		"c-pin.kpatch": "[deployment.web]\nlabels.version: pinned\n",
	})
	got, _ := changes(t, h, deploymentJSON)
	want := []string{"add /metadata/annotations=map[tag:1.27]", "add /metadata/labels=map[version:pinned]",
		"replace /spec/template/spec/containers/0/image=nginx:1.27"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v: b sees a's image tag, c writes after b", got, want)
	}
}

// TestReplacementsNotTargeted: a request no replacement may target is
// answered before decoding (the index), and a decoded object no select
// matches does not count.
func TestReplacementsNotTargeted(t *testing.T) {
	h := replHandler(t, map[string]string{"repl.yaml": "replacements:\n- sourceValue: x\n  targets:\n  - select: {kind: StatefulSet, name: db-.*}\n    fieldPaths: [metadata.labels.x]\n    options: {create: true}\n"})
	reg := h.Registry()
	if got := reg.Candidates("StatefulSet", "shop", "db-0"); len(got) != 1 || got[0].Name() != "reg/repl.yaml" {
		t.Errorf("candidates of StatefulSet db-0: %v", got)
	}
	for _, c := range [][3]string{{"Deployment", "shop", "db-0"}, {"StatefulSet", "shop", "web"}} {
		if got := reg.Candidates(c[0], c[1], c[2]); len(got) != 0 {
			t.Errorf("candidates of %v: %v", c, got)
		}
	}
	if got := reg.Candidates("StatefulSet", "shop", ""); len(got) != 1 {
		t.Errorf("a request without a name may be any name: %v", got)
	}
	raw := `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db-0","labels":{"x":"x"}}}`
	if got, resp := changes(t, h, raw); len(got) != 0 || len(resp.warnings) != 0 {
		t.Errorf("%v %+v", got, resp)
	}
	if n := testutil.ToFloat64(h.Metrics.FileApplications.WithLabelValues("reg/repl.yaml", apply.Unchanged)); n != 1 {
		t.Errorf("unchanged applications %v", n)
	}
}

// TestReplacementsFileCompiles: a replacements file of the registry is
// compiled as one; its problems are positioned and reported like any
// file's, and its last good version applies instead.
func TestReplacementsFileCompiles(t *testing.T) {
	var c registry.Compiler
	b := c.Build([]corev1.ConfigMap{configMap("reg", map[string]string{"repl.yaml": replFile})}, nil)
	files := b.Registry.Files()
	if len(b.Problems) != 0 || len(files) != 1 {
		t.Fatalf("problems %v, files %+v", b.Problems, files)
	}
	if rf, ok := files[0].File.(*apply.ReplacementsFile); !ok || rf.Replacements.Len() != 3 {
		t.Fatalf("problems %v, files %+v", b.Problems, files)
	}
	broken := strings.Replace(replFile, "fieldPaths: [metadata.labels.team]", "fieldPath: [metadata.labels.team]", 1)
	b = c.Build([]corev1.ConfigMap{configMap("reg", map[string]string{"repl.yaml": broken})}, b.LastGood)
	if len(b.Problems) != 1 || !b.Problems[0].LastGood {
		t.Fatalf("want one problem, the last good version applying: %+v", b.Problems)
	}
	err := b.Problems[0].Err
	var list kpatch.ErrorList
	if !errors.As(err, &list) || !strings.HasPrefix(err.Error(), "reg/repl.yaml:19:5: unknown field \"fieldPath\" in a target") {
		t.Errorf("error %v", err)
	}
	f := b.Registry.Files()[0]
	if rf, ok := f.File.(*apply.ReplacementsFile); !ok || rf.Replacements.Len() != 3 {
		t.Errorf("the last good version does not apply: %+v", f)
	}
}

// TestReplacementsReadTheNamespaceVersion: a replacement reads the
// version of the Namespace that the informer last reported.
func TestReplacementsReadTheNamespaceVersion(t *testing.T) {
	h := replHandler(t, map[string]string{"repl.yaml": replFile}, sourceCM("shop", "eu-west-1"))
	var nss informed.InformedNamespaces
	shop := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"team": "checkout"}}}
	nss.OnAdd(shop, true)
	h.Namespaces = &nss
	for _, team := range []string{"checkout", "payments"} {
		if team != "checkout" {
			next := shop.DeepCopy()
			next.Labels["team"] = team
			nss.OnUpdate(shop, next)
		}
		got, _ := changes(t, h, deploymentJSON)
		if !slices.Contains(got, "add /metadata/labels=map[team:"+team+"]") {
			t.Errorf("team %s: %v", team, got)
		}
	}
}
