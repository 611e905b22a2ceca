package kpatch

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/pkg/parameters"
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
	vars, err := LoadVariables([]byte("values:\n  half: 2.5\n  text: many\n  big: 12345678901234567890\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, src, want string }{
		{"a.kpatch", "[deployment.web]\nreplicas: ${values.half}\n", "a.kpatch:2:11: spec.replicas: the field wants an integer, not 2.5 (from ${values.half})"},
		{"b.yaml", "- target: deployment.web\n  type: merge\n  patch:\n    spec: {replicas: \"${values.text}\"}\n", `b.yaml:4:22: spec.replicas: the field wants an integer, not "many"`},
		{"c.kpatch", "[deployment.web]\nreplicas: ${values.big}\n", "c.kpatch:2:11: spec.replicas: the field is a 32-bit integer and 12345678901234567890 is out of its range (from ${values.big})"},
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

// FuzzValueText: a plain scalar written in a values file reaches a
// string field as written, a built-in kind's or a custom resource's
// typed by its CRD, whatever YAML reads it as (a number, a boolean, null,
// a timestamp, text): read as kpatch apply --values reads
// it (variables.Load) and as the registry reads a ConfigMap's
// values.yaml (package parameters).
func FuzzValueText(f *testing.F) {
	for _, s := range []string{"1.0", "1.10", "010", "0x1F", "0o17", "1_000", "-0", ".5", "1.", "+1", "1e3",
		"123456789012345678901234567890", "yes", "True", "off", "y", "null", "~", "2001-12-14", "abc", "x y"} {
		f.Add(s)
	}
	p := mustPatch(f, "f.kpatch", "[configmap.c]\ndata.x: ${values.x}\ndata.y: \"v${values.x}\"\n")
	widget := mustPatch(f, "w.kpatch", "[widget.w]\nspec.version: ${values.x}\n")
	crd := ApplyOptions{Schemas: widgetSchemas(f)}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainScalar(s) {
			t.Skip()
		}
		doc := []byte("values:\n  x: " + s + "\n")
		cli, cliErr := LoadVariables(doc)
		var reg *Variables
		layer, err := parameters.ParseValues("values.yaml", doc)
		if err == nil {
			var none *parameters.Schema
			reg, err = none.Resolve(layer)
		}
		for name, vars := range map[string]*Variables{"kpatch apply --values": cli, "the registry": reg} {
			if vars == nil || cliErr != nil && name == "kpatch apply --values" || err != nil && name == "the registry" {
				continue // .inf, .nan, an integer beyond 64 bits: refused
			}
			bound, err := p.Bind(vars)
			if err != nil {
				t.Fatalf("%s: %q: %v", name, s, err)
			}
			out, err := bound.Apply(mustObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"), ApplyOptions{})
			if err != nil {
				t.Fatalf("%s: %q: %v", name, s, err)
			}
			if got := out["data"].(map[string]any)["x"]; got != s {
				t.Errorf("%s: values.x written %q (read as %#v) reached the string field as %#v", name, s, vars.Values["x"], got)
			}
			if got := out["data"].(map[string]any)["y"]; got != "v"+s {
				t.Errorf("%s: values.x written %q (read as %#v) was spliced as %#v", name, s, vars.Values["x"], got)
			}
			// a custom resource's string field, typed by its CRD
			if bound, err = widget.Bind(vars); err != nil {
				t.Fatalf("%s: %q: %v", name, s, err)
			}
			if out, err = bound.Apply(mustObject(t, widgetObject), crd); err != nil {
				t.Fatalf("%s: %q: custom resource: %v", name, s, err)
			}
			if got := out["spec"].(map[string]any)["version"]; got != s {
				t.Errorf("%s: values.x written %q reached a custom resource's string field as %#v", name, s, got)
			}
		}
	})
}

// plainScalar reports whether s, after "x: " on a line of its own, is
// one plain YAML scalar whose text is s.
func plainScalar(s string) bool {
	if s == "" || strings.ContainsAny(s, "\n\r\t#{}[],&*!|>'\"%@`\\") || strings.TrimSpace(s) != s || strings.HasPrefix(s, "-") && len(s) > 1 && s[1] == ' ' {
		return false
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal([]byte("x: "+s+"\n"), &doc); err != nil || len(doc.Content) != 1 {
		return false
	}
	m := doc.Content[0]
	if m.Kind != yamlv3.MappingNode || len(m.Content) != 2 {
		return false
	}
	v := m.Content[1]
	return v.Kind == yamlv3.ScalarNode && v.Style == 0 && v.Value == s
}

func TestVariableIntoAnImagePartOfACustomResource(t *testing.T) {
	vars, err := LoadVariables([]byte("values:\n  tag: 1.10\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := mustPatch(t, "w.kpatch", "[widget.*]\nspec.image.tag: ${values.tag}\n").Bind(vars)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]any{
		`"nginx:1.0"`: "nginx:1.10",               // an image reference: the tag as written
		`{tag: 0}`:    map[string]any{"tag": 1.1}, // a field of a kind without a schema: the value
	} {
		obj := mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {image: "+in+"}\n")
		out, err := p.Apply(obj, ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := out["spec"].(map[string]any)["image"]; !reflect.DeepEqual(got, want) {
			t.Errorf("image %s: got %#v, want %#v", in, got, want)
		}
		assertPlain(t, out)
	}
}

// TestSplicedVariablesKeepTheirValueOutsideStringFields: a quoted or
// spliced variable is text as written in a string field, and as its value
// prints anywhere else: an integer, a boolean, whether a file is enabled.
func TestSplicedVariablesKeepTheirValueOutsideStringFields(t *testing.T) {
	vars, err := LoadVariables([]byte("values:\n  oct: 010\n  n: 3.0\n  nul: null\n  zero: 0.0\nfeatures:\n  host: on\n  canary: off\n"))
	if err != nil {
		t.Fatal(err)
	}
	src := `[deployment.web]
replicas: "${values.oct}"
annotations.oct: "${values.oct}"
annotations.nul: "v${values.nul}"
hostNetwork: "${features.host}"
annotations.host: "${features.host}"
`
	p, err := mustPatch(t, "s.kpatch", src).Bind(vars)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply(mustObject(t, webDeployment), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := out["spec"].(map[string]any)
	if spec["replicas"] != int64(8) {
		t.Errorf("replicas %#v, want 8 (010 as YAML 1.1 reads it, as unquoted)", spec["replicas"])
	}
	if got := spec["template"].(map[string]any)["spec"].(map[string]any)["hostNetwork"]; got != true {
		t.Errorf("hostNetwork %#v, want true", got)
	}
	annotations := out["metadata"].(map[string]any)["annotations"].(map[string]any)
	for k, want := range map[string]string{"oct": "010", "nul": "vnull", "host": "on"} {
		if annotations[k] != want {
			t.Errorf("annotation %s = %#v, want %q", k, annotations[k], want)
		}
	}
	p3, err := mustPatch(t, "n.kpatch", "[deployment.web]\nreplicas: \"${values.n}\"\n").Bind(vars)
	if err != nil {
		t.Fatalf("3.0 quoted into replicas: %v", err)
	}
	if out, err = p3.Apply(mustObject(t, webDeployment), ApplyOptions{}); err != nil || out["spec"].(map[string]any)["replicas"] != int64(3) {
		t.Errorf("3.0 quoted into replicas: %v %v", out["spec"], err)
	}
	// enabled: reads the value, not its spelling: off and 0.0 disable
	for _, cond := range []string{`"${features.canary}"`, `"${values.zero}"`, `${features.canary}`} {
		p, err := mustPatch(t, "e.kpatch", "# kpatch:enabled: "+cond+"\n[deployment.web]\nlabels.on: \"yes\"\n").Bind(vars)
		if err != nil {
			t.Fatal(err)
		}
		if enabled, err := p.Enabled(); err != nil || enabled {
			t.Errorf("enabled: %s: %v %v, want disabled", cond, enabled, err)
		}
	}
}

func TestVariableNullOutsideStringFields(t *testing.T) {
	vars, err := LoadVariables([]byte("values:\n  nul: null\n  tilde: ~\n"))
	if err != nil {
		t.Fatal(err)
	}
	// a null removes an image part, as an empty value does
	for _, v := range []string{"nul", "tilde"} {
		p, err := mustPatch(t, "i.kpatch", "[deployment.web.containers.name=app]\nimage.tag: ${values."+v+"}\n\n[widget.w]\nspec.image.tag: ${values."+v+"}\n").Bind(vars)
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Apply(mustObject(t, webDeployment), ApplyOptions{})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		c := out["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		if image, _ := c["image"].(string); image == "" || strings.Contains(image, ":") {
			t.Errorf("%s: image %#v, want the tag removed", v, c["image"])
		}
		w, err := p.Apply(mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {image: \"nginx:1.0\"}\n"), ApplyOptions{})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if got := w["spec"].(map[string]any)["image"]; got != "nginx" {
			t.Errorf("%s: custom resource image %#v, want the tag removed", v, got)
		}
	}
	// a Secret's data holds base64, not text: a null stays null
	p, err := mustPatch(t, "s.kpatch", "[secret.s]\ndata.b: ${values.nul}\n").Bind(vars)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply(mustObject(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: eA==}\n"), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := out["data"].(map[string]any)["b"]; !ok || got != nil {
		t.Errorf("Secret data.b %#v, want null", got)
	}
}

// TestStrategicDirectivesTakeVariablesAsValues: the lists of a strategic
// merge patch's directives hold values, not texts.
func TestStrategicDirectivesTakeVariablesAsValues(t *testing.T) {
	vars, err := LoadVariables([]byte("values:\n  groups: [1_000]\n"))
	if err != nil {
		t.Fatal(err)
	}
	src := `- target: deployment.web
  type: strategic
  patch:
    spec:
      template:
        spec:
          securityContext:
            $deleteFromPrimitiveList/supplementalGroups: "${values.groups}"
`
	p, err := mustPatch(t, "d.yaml", src).Bind(vars)
	if err != nil {
		t.Fatal(err)
	}
	obj := mustObject(t, webDeployment)
	podSpec := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	podSpec["securityContext"] = map[string]any{"supplementalGroups": []any{int64(1000), int64(2000)}}
	out, err := p.Apply(obj, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := out["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["securityContext"]
	if want := map[string]any{"supplementalGroups": []any{int64(2000)}}; !reflect.DeepEqual(got, want) {
		t.Errorf("securityContext %#v, want %#v", got, want)
	}
	assertPlain(t, out)
}

// TestVariablesInMergePatches: a null removes its field, as a constant
// null does; a directive's list is typed as the list it names.
func TestVariablesInMergePatches(t *testing.T) {
	vars, err := LoadVariables([]byte("values:\n  nul: ~\n  m: {drop: ~, keep: 1.0}\n  drop: [1.10]\n"))
	if err != nil {
		t.Fatal(err)
	}
	src := `- target: deployment.web
  type: merge
  patch:
    metadata:
      labels: {gone: "${values.nul}"}
      annotations: "${values.m}"
- target: deployment.web
  type: strategic
  patch:
    spec:
      template:
        spec:
          containers:
          - name: app
            $deleteFromPrimitiveList/args: "${values.drop}"
`
	p, err := mustPatch(t, "m.yaml", src).Bind(vars)
	if err != nil {
		t.Fatal(err)
	}
	obj := mustObject(t, webDeployment)
	md := obj["metadata"].(map[string]any)
	md["labels"] = map[string]any{"gone": "x", "app": "web"}
	md["annotations"] = map[string]any{"drop": "x"}
	c := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	c["args"] = []any{"1.10", "keep"}
	out, err := p.Apply(obj, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md = out["metadata"].(map[string]any)
	if got, want := md["labels"], map[string]any{"app": "web"}; !reflect.DeepEqual(got, want) {
		t.Errorf("labels %#v, want %#v (a null removes)", got, want)
	}
	if got, want := md["annotations"], map[string]any{"keep": "1.0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("annotations %#v, want %#v", got, want)
	}
	c = out["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if got, want := c["args"], []any{"keep"}; !reflect.DeepEqual(got, want) {
		t.Errorf("args %#v, want %#v", got, want)
	}
	assertPlain(t, out)
}
