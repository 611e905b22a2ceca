package kpatch

import (
	"encoding/json"
	"reflect"
	"testing"
)

// textValues are values whose text differs from how their value prints.
const textValues = `values:
  ver: 1.0
  minor: 1.10
  octal: 010
  answer: yes
  nothing: null
  n: "3"
  port: 8080.0
  labels: {release: 2.10, stable: on}
  env: [{name: MINOR, value: 1.10}]
  size: 1.50
features:
  canary: on
`

func TestVariablesKeepTheirTextInStringFields(t *testing.T) {
	vars, err := LoadVariables([]byte(textValues))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"whole.kpatch": `[deployment.web]
annotations.ver: ${values.ver}
annotations.minor: ${values.minor}
annotations.octal: ${values.octal}
annotations.answer: ${values.answer}
annotations.nothing: ${values.nothing}
annotations.canary: ${features.canary}
annotations.spliced: "v${values.ver}/${values.octal}/${features.canary}"
labels: ${values.labels}
replicas: ${values.n}

[deployment.web.containers.name=app]
env: ${values.env}
ports[0].containerPort: ${values.port}
`,
		"patch.yaml": `- target: deployment.web
  type: strategic
  patch:
    spec:
      template:
        metadata:
          annotations: {ver: "${values.ver}"}
- target: deployment.web
  type: merge
  patch:
    metadata:
      annotations: {merged: "${values.minor}"}
- target: deployment.web
  patch:
    annotations.field: "${values.octal}"
`,
	}
	obj := mustObject(t, webDeployment)
	for _, name := range []string{"whole.kpatch", "patch.yaml"} {
		p, err := mustPatch(t, name, files[name]).Bind(vars)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if obj, err = p.Apply(obj, ApplyOptions{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	meta := obj["metadata"].(map[string]any)
	wantAnnotations := map[string]any{
		"ver": "1.0", "minor": "1.10", "octal": "010", "answer": "yes", "nothing": "null", "canary": "on",
		"spliced": "v1.0/010/on", "merged": "1.10", "field": "010",
	}
	for k, want := range wantAnnotations {
		if got := meta["annotations"].(map[string]any)[k]; got != want {
			t.Errorf("annotation %s = %#v, want %#v", k, got, want)
		}
	}
	if got, want := meta["labels"], map[string]any{"release": "2.10", "stable": "on"}; !reflect.DeepEqual(got, want) {
		t.Errorf("labels %#v, want %#v", got, want)
	}
	spec := obj["spec"].(map[string]any)
	if spec["replicas"] != int64(3) {
		t.Errorf("replicas %#v, want the integer 3", spec["replicas"])
	}
	tmpl := spec["template"].(map[string]any)
	if got := tmpl["metadata"].(map[string]any)["annotations"].(map[string]any)["ver"]; got != "1.0" {
		t.Errorf("strategic patch: pod annotation ver = %#v, want \"1.0\"", got)
	}
	c := tmpl["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if got, want := c["env"], []any{map[string]any{"name": "MINOR", "value": "1.10"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("env %#v, want %#v", got, want)
	}
	if got := c["ports"].([]any)[0].(map[string]any)["containerPort"]; got != int64(8080) {
		t.Errorf("containerPort %#v, want the integer 8080", got)
	}
	assertPlain(t, obj)
}

func TestVariablesWithoutSchemaKeepTheirValue(t *testing.T) {
	vars, err := LoadVariables([]byte(textValues))
	if err != nil {
		t.Fatal(err)
	}
	// A kind without a schema: a value takes the variable's type, as
	// before; quoted or spliced, it is the text as written.
	src := `[widget.w]
spec.size: ${values.size}
spec.sizeText: "${values.size}"
spec.labels: ${values.labels}
spec.env: ${values.env}
`
	yamlSrc := `- target: widget.w
  type: merge
  patch:
    spec: {merged: "${values.size}", nested: {list: ["${values.minor}"]}}
`
	obj := mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {}\n")
	for name, s := range map[string]string{"w.kpatch": src, "w.yaml": yamlSrc} {
		p, err := mustPatch(t, name, s).Bind(vars)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if obj, err = p.Apply(obj, ApplyOptions{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	spec := obj["spec"].(map[string]any)
	want := map[string]any{
		"size": 1.5, "sizeText": "1.50", "merged": 1.5,
		"labels": map[string]any{"release": 2.1, "stable": true},
		"env":    []any{map[string]any{"name": "MINOR", "value": 1.1}},
		"nested": map[string]any{"list": []any{1.1}},
	}
	if !reflect.DeepEqual(spec, want) {
		t.Errorf("spec\n got %#v\nwant %#v", spec, want)
	}
	assertPlain(t, obj)
}

func TestVariableIntoIntegerFieldFailsAtItsPosition(t *testing.T) {
	vars, err := LoadVariables([]byte("values:\n  half: 2.5\n  text: many\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, src, want string }{
		{"a.kpatch", "[deployment.web]\nreplicas: ${values.half}\n", "a.kpatch:2:11: spec.replicas: the field wants an integer, not 2.5 (from ${values.half})"},
		{"b.yaml", "- target: deployment.web\n  type: merge\n  patch:\n    spec: {replicas: \"${values.text}\"}\n", `b.yaml:4:22: spec.replicas: the field wants an integer, not "many"`},
	} {
		_, err := mustPatch(t, tt.name, tt.src).Bind(vars)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v\nwant %s", tt.name, err, tt.want)
		}
	}
}

// assertPlain fails when a value of the object is not plain JSON data
// (an engine-internal wrapper left in it).
func assertPlain(t *testing.T, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			assertPlain(t, e)
		}
	case []any:
		for _, e := range x {
			assertPlain(t, e)
		}
	case nil, string, bool, int64, float64, json.Number:
	default:
		t.Errorf("the object holds %#v (%T)", v, v)
	}
}
