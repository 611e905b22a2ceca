package kpatch

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestMergePatchesAreTyped: strategic and JSON merge patch values are
// converted to the kind's field types like field entries, or rejected at
// compile time with their position.
func TestMergePatchesAreTyped(t *testing.T) {
	p := mustPatch(t, "f.yaml", `- target: deployment.web
  type: strategic
  patch:
    spec:
      replicas: "3"
      template:
        spec:
          containers:
          - name: app
            resources: {limits: {cpu: 0.5, memory: 256Mi}}
- target: configmap.c
  type: merge
  patch:
    data: {n: 12345678901234567890, f: 1.10, b: true}
    metadata: {labels: {id: 12345678901234567890}}
`)
	out, err := p.Apply(mustObject(t, webDeployment), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := out["spec"].(map[string]any)
	if spec["replicas"] != int64(3) {
		t.Errorf("replicas %#v, want int64 3", spec["replicas"])
	}
	app := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if limits := app["resources"].(map[string]any)["limits"].(map[string]any); limits["cpu"] != "500m" || limits["memory"] != "256Mi" {
		t.Errorf("limits %v", limits)
	}
	cm, err := p.Apply(mustObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data := cm["data"].(map[string]any)
	if data["n"] != "12345678901234567890" || data["f"] != "1.10" || data["b"] != "true" {
		t.Errorf("data %v", data)
	}
	if id := cm["metadata"].(map[string]any)["labels"].(map[string]any)["id"]; id != "12345678901234567890" {
		t.Errorf("label %v", id)
	}
}

func TestTypeErrorsAtTheirPosition(t *testing.T) {
	tests := []struct {
		name, src, pos string
		sentinel       error
		msg            string
	}{
		{"strategic value", "- target: deployment.web\n  type: strategic\n  patch:\n    spec:\n      replicas: three\n", "f.yaml:5:17", ErrValue, `spec.replicas: the field wants an integer, not "three"`},
		{"strategic unknown field", "- target: deployment.web\n  type: strategic\n  patch:\n    spec:\n      replicsa: 3\n", "f.yaml:5:7", ErrUnknownField, `spec.replicsa: DeploymentSpec has no field "replicsa"`},
		{"merge quantity", "- target: pod.p\n  type: merge\n  patch:\n    spec:\n      containers:\n      - name: a\n        resources:\n          limits: {cpu: banana}\n", "f.yaml:8:25", ErrValue, `spec.containers[0].resources.limits.cpu: the field wants a quantity`},
		{"field tree", "- target: deployment.web\n  patch:\n    containers[name=app].resources:\n      limits:\n        cpu: [1]\n", "f.yaml:5:14", ErrValue, "limits.cpu: the field is a quantity, not a list"},
		{"field scalar quantity", "- target: deployment.web\n  patch:\n    containers[name=app].resources.limits.cpu: banana\n", "f.yaml:3:48", ErrValue, "wants a quantity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pe := compileError(t, "f.yaml", tt.src)
			if pe.Pos.String() != tt.pos || !errors.Is(pe, tt.sentinel) || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("got %v (%v), want %s %v %q", pe, pe.Err, tt.pos, tt.sentinel, tt.msg)
			}
		})
	}
}

// TestNonFiniteFloats: .inf and .nan cannot be held in an object; they
// are parse errors at their position, in every kind of value.
func TestNonFiniteFloats(t *testing.T) {
	for _, tt := range []struct{ src, pos string }{
		{"- target: widget.w\n  patch:\n    spec.ratio: .inf\n", "f.yaml:3:17"},
		{"- target: widget.w\n  patch:\n    spec: {a: [1, -.Inf]}\n", "f.yaml:3:19"},
		{"- target: widget.w\n  type: merge\n  patch:\n    spec:\n      x: .nan\n", "f.yaml:5:10"},
	} {
		_, err := ParseYAML("f.yaml", []byte(tt.src))
		var list ErrorList
		if !errors.As(err, &list) || len(list) != 1 || list[0].(*ParseError).Pos.String() != tt.pos || !errors.Is(err, ErrValue) {
			t.Errorf("%q: %v, want an ErrValue at %s", tt.src, err, tt.pos)
		}
	}
	if _, err := ParseString("f", "[widget.w]\nspec.ratio: .inf\n"); !errors.Is(err, ErrValue) {
		t.Errorf(".kpatch .inf: %v", err)
	}
}

// TestBigNumbersKeepTheirText: numbers beyond 64 bits, and floats, keep
// the text they were written with in string fields.
func TestBigNumbersKeepTheirText(t *testing.T) {
	p := mustPatch(t, "f", "[configmap.c]\ndata.id: 12345678901234567890\nlabels.v: 1.10\n\n[widget.w]\nspec.id: 12345678901234567890\n")
	out, err := p.Apply(mustObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out["data"].(map[string]any)["id"] != "12345678901234567890" || out["metadata"].(map[string]any)["labels"].(map[string]any)["v"] != "1.10" {
		t.Errorf("got %v", out)
	}
	w, err := p.Apply(mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(w["spec"])
	if string(b) != `{"id":12345678901234567890}` {
		t.Errorf("a custom resource's big integer: %s", b)
	}
	y := mustPatch(t, "f.yaml", "- target: configmap.c\n  patch:\n    data: {id: 123456789012345678901234567890, v: 1.10}\n")
	out, err = y.Apply(mustObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"), ApplyOptions{})
	if d := out["data"].(map[string]any); err != nil || d["id"] != "123456789012345678901234567890" || d["v"] != "1.10" {
		t.Errorf("YAML tree: %v %v", out["data"], err)
	}
}

// TestUnencodableVariableDropsTheFile: a value no JSON can carry fails
// its file on the object, and the other files still apply.
func TestUnencodableVariableDropsTheFile(t *testing.T) {
	bad := mustPatch(t, "bad", "[widget.w]\nspec.a: 1\nspec.ratio: ${values.r}\n").WithVariables(&Variables{Values: map[string]any{"r": math.Inf(1)}})
	good := mustPatch(t, "good", "[widget.w]\nspec.b: 2\n")
	obj := mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {}\n")
	out, err := Apply(obj, []*Patch{bad, good}, ApplyOptions{})
	if !errors.Is(err, ErrVariable) || !strings.HasPrefix(err.Error(), "bad:3:13: ") {
		t.Errorf("error %v", err)
	}
	if spec := out["spec"].(map[string]any); spec["a"] != nil || spec["b"] != int64(2) {
		t.Errorf("spec %v", spec)
	}
	if _, err := json.Marshal(out); err != nil {
		t.Error(err)
	}
}

func TestQuantitiesAreCanonical(t *testing.T) {
	p := mustPatch(t, "f", "[deployment.web.containers.name=app]\nresources.limits.cpu: 0.5\nresources.limits.memory: 1024Mi\nresources.requests.cpu: 1000m\n")
	out, err := p.Apply(mustObject(t, webDeployment), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := out["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["resources"].(map[string]any)
	lim, req := res["limits"].(map[string]any), res["requests"].(map[string]any)
	if lim["cpu"] != "500m" || lim["memory"] != "1Gi" || req["cpu"] != "1" {
		t.Errorf("limits %v, requests %v", lim, req)
	}
}

// TestInfinityBuiltWithoutTheParser: a syntax tree built in Go with an
// infinite value does not compile.
func TestInfinityBuiltWithoutTheParser(t *testing.T) {
	target := Target{Kind: "Widget", Name: "w", NameLiteral: true}
	for _, f := range []*File{
		{Name: "f", Sections: []*Section{{Target: target, Line: 1, Col: 1, Entries: []*Entry{{Key: Path{{Kind: Field, Name: "spec"}, {Kind: Field, Name: "x"}}, Value: Value{Scalar: math.Inf(1)}, Line: 2, Col: 1, ValueCol: 8}}}}},
		{Name: "f", Merges: []*MergeEntry{{Target: target, Patch: map[string]any{"spec": map[string]any{"x": math.NaN()}}, Line: 1, Col: 3}}},
	} {
		if _, err := Compile(f); !errors.Is(err, ErrValue) {
			t.Errorf("compiled: %v", err)
		}
	}
}
