package replacement

import (
	"errors"
	"slices"
	"testing"
)

// TestApplyObjectFallback reads a source from the fallback candidates
// only when the sources have none it selects: the object's namespace's
// ConfigMap shadows the registry namespace's of the same name.
func TestApplyObjectFallback(t *testing.T) {
	r := mustParse(t, admissionFile)
	registryCM := obj(t, `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: kpatch-system}
data: {region: us-east-1}
`)
	sources := []map[string]any{obj(t, namespaceObj)}
	out, err := r.ApplyObject(obj(t, admitted), sources, ObjectOptions{Namespace: "shop", Fallback: []map[string]any{registryCM}})
	if err != nil {
		t.Fatal(err)
	}
	if got := field(t, out, "spec.template.spec.containers.0.env.[name=REGION].value"); got != "us-east-1" {
		t.Errorf("REGION = %v, want the fallback's us-east-1", got)
	}
	sources = append(sources, obj(t, settingsCM))
	out, err = r.ApplyObject(obj(t, admitted), sources, ObjectOptions{Namespace: "shop", Fallback: []map[string]any{registryCM}})
	if err != nil {
		t.Fatal(err)
	}
	if got := field(t, out, "spec.template.spec.containers.0.env.[name=REGION].value"); got != "eu-west-1" {
		t.Errorf("REGION = %v, want the namespace's own eu-west-1", got)
	}
}

// TestApplyObjectFallbackAmbiguous does not look at the fallback when the
// sources select several objects: that stays an error.
func TestApplyObjectFallbackAmbiguous(t *testing.T) {
	r := mustParse(t, `
replacements:
- source: {kind: ConfigMap, fieldPath: data.region}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.annotations.region]
    options: {create: true}
`)
	other := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, namespace: shop}\ndata: {region: x}\n")
	_, err := r.ApplyObject(obj(t, admitted), []map[string]any{obj(t, settingsCM), other},
		ObjectOptions{Namespace: "shop", Fallback: []map[string]any{other}})
	if !errors.Is(err, ErrAmbiguousSource) {
		t.Fatalf("err = %v, want ErrAmbiguousSource", err)
	}
}

// TestTargetsAndIndex checks what a registry reads of the targets: the
// literal kinds, whether other kinds may match, and the superset test
// from kind, namespace and name.
func TestTargetsAndIndex(t *testing.T) {
	r := mustParse(t, `
replacements:
- sourceValue: x
  targets:
  - select: {kind: Deployment, name: web-.*}
  - select: {kind: CronJob, namespace: shop}
    reject: [{name: web}]
`)
	kinds, anyKind := r.Kinds()
	if !slices.Equal(kinds, []string{"Deployment", "CronJob"}) || anyKind {
		t.Errorf("Kinds = %v, %v", kinds, anyKind)
	}
	for _, c := range []struct {
		kind, ns, name string
		want           bool
	}{
		{"Deployment", "a", "web-1", true},
		{"Deployment", "a", "api", false},
		{"Deployment", "a", "", true},
		{"CronJob", "shop", "web", true}, // rejected by Targets, not by MayTarget
		{"CronJob", "other", "x", false},
		{"Service", "shop", "web-1", false},
	} {
		if got := r.MayTarget(c.kind, c.ns, c.name); got != c.want {
			t.Errorf("MayTarget(%s, %s, %s) = %v", c.kind, c.ns, c.name, got)
		}
	}
	if r.Targets(obj(t, admitted), "shop") {
		t.Error("Targets: Deployment web is not web-.*")
	}
	if !r.Targets(obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-1}\n"), "shop") {
		t.Error("Targets: Deployment web-1 is web-.*")
	}
	if _, anyKind := mustParse(t, "replacements:\n- sourceValue: x\n  targets:\n  - select: {kind: Deployment|StatefulSet}\n").Kinds(); !anyKind {
		t.Error("a kind that is a regular expression may match any kind")
	}
}
