package kpatch

import (
	"errors"
	"strings"
	"testing"
)

// builtinMap is a BuiltinReader of fixed values.
type builtinMap map[string]string

func (m builtinMap) Lookup(ref string) (string, bool) { v, ok := m[ref]; return v, ok }

func TestBuiltinsApply(t *testing.T) {
	p := mustPatch(t, "f", `[deployment.web]
labels.owner: ${object.name}
labels.ns: "${object.namespace}"
labels.part-of: ${namespace.labels.app.kubernetes.io/part-of}
annotations.cost: "cc-${namespace.annotations.example.com/cost-centre}"
`)
	b, err := p.Bind(&Variables{}) // without built-ins: checked as it applies
	if err != nil {
		t.Fatalf("Bind without built-ins: %v", err)
	}
	if _, err := b.Apply(mustObject(t, webDeployment), ApplyOptions{}); !errors.Is(err, ErrVariable) || !strings.Contains(err.Error(), "built-in ${object.name} has no value") {
		t.Errorf("apply without built-ins: %v", err)
	}
	vars := &Variables{Builtins: builtinMap{
		"object.name": "web", "object.namespace": "team-a",
		"namespace.labels.app.kubernetes.io/part-of":    "shop",
		"namespace.annotations.example.com/cost-centre": "42",
	}}
	out, err := p.WithVariables(vars).Apply(mustObject(t, webDeployment), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md := out["metadata"].(map[string]any)
	labels, ann := md["labels"].(map[string]any), md["annotations"].(map[string]any)
	if labels["owner"] != "web" || labels["ns"] != "team-a" || labels["part-of"] != "shop" || ann["cost"] != "cc-42" {
		t.Errorf("labels %v annotations %v", labels, ann)
	}
	delete(vars.Builtins.(builtinMap), "namespace.labels.app.kubernetes.io/part-of")
	_, err = p.WithVariables(vars).Apply(mustObject(t, webDeployment), ApplyOptions{})
	if !errors.Is(err, ErrVariable) || !strings.Contains(err.Error(), "${namespace.labels.app.kubernetes.io/part-of} is not defined: the Namespace has no such label") {
		t.Errorf("a missing label: %v", err)
	}
}

func TestBuiltinsBindChecksWithValues(t *testing.T) {
	p := mustPatch(t, "f", "[deployment.web]\nreplicas: ${object.name}\n")
	if _, err := p.Bind(&Variables{Builtins: builtinMap{"object.name": "web"}}); !errors.Is(err, ErrValue) && !errors.Is(err, ErrVariable) {
		t.Errorf("Bind with a text built-in into an integer: %v", err)
	}
}

func TestBuiltinsParse(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"labels.a: ${object.uid}", "unknown built-in ${object.uid}"},
		{"labels.a: ${namespace.name}", "unknown built-in ${namespace.name}"},
		{"labels.a: ${namespace.labels.-bad}", `invalid label key "-bad"`},
		{"labels.a: ${namespace.annotations.a/b/c}", `invalid annotation key "a/b/c"`},
	} {
		_, err := ParseAndCompile("f.kpatch", []byte("[deployment.web]\n"+tt.src+"\n"))
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.src, err, tt.want)
		}
	}
	var v Variables
	if err := v.Set("object.name=x"); err == nil {
		t.Error("--set of a built-in is accepted")
	}
}

func TestFileReferences(t *testing.T) {
	p := mustPatch(t, "f.yaml", `- target: deployment.web
  type: merge
  patch:
    metadata:
      labels: {a: "${values.x}-${object.name}"}
`)
	var got []string
	for _, r := range p.File().References() {
		got = append(got, r.Var.String())
	}
	if strings.Join(got, " ") != "${values.x} ${object.name}" {
		t.Errorf("References() = %v", got)
	}
}
