package replacement

import (
	"errors"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/pkg/fileerr"
)

func obj(t *testing.T, src string) map[string]any {
	t.Helper()
	objs := readObjects(t, []byte(src))
	if len(objs) != 1 {
		t.Fatalf("want one object, got %d", len(objs))
	}
	return objs[0]
}

func mustParse(t *testing.T, src string) *Replacements {
	t.Helper()
	r, err := Parse("r.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func field(t *testing.T, o map[string]any, path string) any {
	t.Helper()
	fp, err := ParseSourcePath(path)
	if err != nil {
		t.Fatal(err)
	}
	v, _, f := lookup(o, fp.steps)
	if f != nil {
		t.Fatal(f)
	}
	return v
}

const admitted = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: main
        image: registry.example/app:1.4.2
        env:
        - {name: VERSION, value: unknown}
        - {name: REGION, value: unknown}
`

const namespaceObj = `
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels: {team: checkout}
`

const settingsCM = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
  labels: {kpatch.dev/source: "true"}
data:
  region: eu-west-1
`

const admissionFile = `
replacements:
# the object's own image tag into its env
- source:
    kind: Deployment
    fieldPath: spec.template.spec.containers.[name=main].image
    options: {delimiter: ':', index: 1}
  targets:
  - select: {kind: Deployment}
    fieldPaths:
    - spec.template.spec.containers.[name=main].env.[name=VERSION].value
# a value of a labelled ConfigMap
- source: {kind: ConfigMap, name: settings, fieldPath: data.region}
  targets:
  - select: {kind: Deployment}
    fieldPaths:
    - spec.template.spec.containers.[name=main].env.[name=REGION].value
# a label of the object's Namespace
- source: {kind: Namespace, fieldPath: metadata.labels.team}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.labels.team]
    options: {create: true}
`

// TestApplyObjectSources copies from the object itself, a ConfigMap and
// the Namespace, with the namespace taken from the options.
func TestApplyObjectSources(t *testing.T) {
	r := mustParse(t, admissionFile)
	in := obj(t, admitted)
	before, _ := yaml.Marshal(in)
	sources := []map[string]any{obj(t, namespaceObj), obj(t, settingsCM)}
	out, err := r.ApplyObject(in, sources, ObjectOptions{Namespace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{
		"spec.template.spec.containers.0.env.[name=VERSION].value": "1.4.2",
		"spec.template.spec.containers.0.env.[name=REGION].value":  "eu-west-1",
		"metadata.labels.team": "checkout",
	} {
		if got := field(t, out, path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if after, _ := yaml.Marshal(in); string(after) != string(before) {
		t.Error("the admitted object was modified")
	}
}

// TestApplyObjectUnresolvedSource skips only the replacement whose source
// is missing, with an error the caller can tell from others.
func TestApplyObjectUnresolvedSource(t *testing.T) {
	r := mustParse(t, admissionFile)
	out, err := r.ApplyObject(obj(t, admitted), []map[string]any{obj(t, namespaceObj)}, ObjectOptions{Namespace: "shop"})
	if !errors.Is(err, ErrNoSource) || !errors.Is(err, ErrSource) {
		t.Fatalf("err = %v, want ErrNoSource", err)
	}
	var list fileerr.List
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("want one error in a fileerr.List, got %#v", err)
	}
	var e *Error
	if !errors.As(list[0], &e) || e.Pos.Line != 13 {
		t.Errorf("want the position of the ConfigMap source (line 13), got %v", list[0])
	}
	if got := field(t, out, "metadata.labels.team"); got != "checkout" {
		t.Errorf("the other replacements did not apply: team = %v", got)
	}
	if got := field(t, out, "spec.template.spec.containers.0.env.[name=REGION].value"); got != "unknown" {
		t.Errorf("REGION = %v, want unknown", got)
	}
}

// TestApplyObjectAtomic returns the object itself when a target fails.
func TestApplyObjectAtomic(t *testing.T) {
	r := mustParse(t, admissionFile+`
- sourceValue: x
  targets:
  - select: {kind: Deployment}
    fieldPaths:
    - spec.template.spec.containers.[name=missing].image
`)
	in := obj(t, admitted)
	sources := []map[string]any{obj(t, namespaceObj), obj(t, settingsCM)}
	out, err := r.ApplyObject(in, sources, ObjectOptions{Namespace: "shop"})
	if !errors.Is(err, ErrTargetField) || errors.Is(err, ErrSource) {
		t.Fatalf("err = %v, want ErrTargetField", err)
	}
	if reflect.ValueOf(out).Pointer() != reflect.ValueOf(in).Pointer() {
		t.Error("a failed file must leave the object as it was")
	}
}

// TestApplyObjectNotTargeted does not resolve the sources of a
// replacement that does not target the object.
func TestApplyObjectNotTargeted(t *testing.T) {
	r := mustParse(t, `
replacements:
- source: {kind: ConfigMap, name: nowhere}
  targets:
  - select: {kind: StatefulSet}
`)
	in := obj(t, admitted)
	out, err := r.ApplyObject(in, nil, ObjectOptions{Namespace: "shop"})
	if err != nil || reflect.ValueOf(out).Pointer() != reflect.ValueOf(in).Pointer() {
		t.Fatalf("out changed or err = %v", err)
	}
}

// TestApplyObjectOlderCopy ignores a candidate that is the admitted
// object itself (its old version in a cache, on UPDATE).
func TestApplyObjectOlderCopy(t *testing.T) {
	r := mustParse(t, `
replacements:
- source: {kind: ConfigMap, name: settings, fieldPath: data.region}
  targets:
  - select: {kind: ConfigMap}
    fieldPaths: [data.copy]
    options: {create: true}
`)
	in := obj(t, settingsCM)
	in["data"].(map[string]any)["region"] = "us-east-1"
	out, err := r.ApplyObject(in, []map[string]any{obj(t, settingsCM)}, ObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := field(t, out, "data.copy"); got != "us-east-1" {
		t.Errorf("copy = %v, want the admitted object's us-east-1", got)
	}
}

// TestApplyUnchangedObjectsShared returns the input maps of the objects
// no replacement touched, and never modifies an input.
func TestApplyUnchangedObjectsShared(t *testing.T) {
	r := mustParse(t, `
replacements:
- source: {kind: Namespace}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.namespace]
    options: {create: true}
`)
	in := []map[string]any{obj(t, namespaceObj), obj(t, admitted)}
	before, _ := yaml.Marshal(in)
	out, err := r.Apply(in)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.ValueOf(out[0]).Pointer() != reflect.ValueOf(in[0]).Pointer() {
		t.Error("an untouched object was copied")
	}
	if field(t, out[1], "metadata.namespace") != "shop" {
		t.Errorf("namespace not set: %v", out[1])
	}
	if after, _ := yaml.Marshal(in); string(after) != string(before) {
		t.Error("the input was modified")
	}
}

// TestIsReplacementsFile tells replacements files from other YAML patch
// files.
func TestIsReplacementsFile(t *testing.T) {
	for src, want := range map[string]bool{
		"replacements: []\n":                      true,
		"replacements:\n- sourceValue: x\n":       true,
		"- target: deployment.web\n  patch: {}\n": false,
		"":        false,
		"{a: [\n": false,
	} {
		if got := IsReplacementsFile([]byte(src)); got != want {
			t.Errorf("IsReplacementsFile(%q) = %v", src, got)
		}
	}
}

// TestParseErrorsAll reports every problem of a file, in order, with its
// position.
func TestParseErrorsAll(t *testing.T) {
	_, err := Parse("r.yaml", []byte(`replacements:
- sourceValue: x
  targets:
  - select: {kind: "a(", labelSelector: "a in (("}
    options: {index: two, create: maybe}
extra: 1
`))
	var list fileerr.List
	if !errors.As(err, &list) {
		t.Fatalf("want a fileerr.List, got %v", err)
	}
	want := []string{
		"r.yaml:4:20: error creating target selector: error parsing regexp: missing closing ): `^(?:a()$`",
		"r.yaml:4:41: unable to parse requirement: found '(', expected: ',', ')' or identifier",
		"r.yaml:5:22: index is an integer, got \"two\"",
		"r.yaml:5:35: create is true or false, got \"maybe\"",
		"r.yaml:6:1: unknown field \"extra\" in a replacements file; expected replacements",
	}
	if len(list) != len(want) {
		t.Fatalf("got %d errors:\n%v", len(list), err)
	}
	for i, e := range list {
		if !errors.Is(e, fileerr.ErrSyntax) && !errors.Is(e, fileerr.ErrValue) {
			t.Errorf("%v: no sentinel", e)
		}
		if e.Error() != want[i] {
			t.Errorf("error %d:\n got %s\nwant %s", i, e, want[i])
		}
	}
}
