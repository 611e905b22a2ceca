package kpatch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestCELValueTypedByField compiles CEL values against their fields: a
// mismatch is an error at the expression's column, a list goes into a
// list field, a value the checker cannot type is left to the object.
func TestCELValueTypedByField(t *testing.T) {
	for _, c := range []struct {
		src, err string
	}{
		{"[deployment.web]\nreplicas: ${cel: object.metadata.name + '-x'}\n", "f.kpatch:2:18: ${cel:}: spec.replicas wants an integer; the expression gives string"},
		{"[deployment.web]\nlabels.a: \"x-${cel: [1, 2]}\"\n", "f.kpatch:2:21: ${cel:}: spliced into text"},
		{"[deployment.web]\nlabels.a: ${cel: 'a' + podSpec.x}\n", "f.kpatch:2:24: ${cel:}: undeclared reference to 'podSpec'"},
		{"[deployment.web]\nlabels.a: ${cel: }\n", "f.kpatch:2:18: ${cel:} needs an expression"},
		{"[deployment.web.containers.name=app]\nargs: ${cel: ['a', 'b']}\n", ""},
		{"[deployment.web]\nreplicas: ${cel: object.spec.replicas}\n", ""},
	} {
		_, err := ParseAndCompile("f.kpatch", []byte(c.src))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.src, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %v, want %q", c.src, err, c.err)
		}
	}
}

// TestCELValueFailsOnlyItsFile evaluates a CEL value on two objects: where
// it fails (a label map the object lacks), its file leaves that object
// alone and the other file applies; elsewhere it applies.
func TestCELValueFailsOnlyItsFile(t *testing.T) {
	team := mustPatch(t, "team.kpatch", "[deployment.*]\nannotations.team: ${cel: object.metadata.labels.team}\nreplicas: ${cel: 4}\n")
	name := mustPatch(t, "name.kpatch", "[deployment.*]\nannotations.name: \"n-${cel: object.metadata.name}\"\n")
	bare := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "bare"}, "spec": map[string]any{"replicas": int64(1)}}
	out, err := Apply(bare, []*Patch{team, name}, ApplyOptions{})
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Error(), "team.kpatch:2:19: Deployment bare: ${cel: object.metadata.labels.team}: condition failed: no such key: labels") {
		t.Fatalf("error %v", err)
	}
	want := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "bare", "annotations": map[string]any{"name": "n-bare"}}, "spec": map[string]any{"replicas": int64(1)}}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got %v, want %v", out, want)
	}
	labelled := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "l", "labels": map[string]any{"team": "blue"}}}
	out, err = Apply(labelled, []*Patch{team}, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := out["metadata"].(map[string]any)["annotations"]; !reflect.DeepEqual(got, map[string]any{"team": "blue"}) {
		t.Errorf("annotations %v", got)
	}
	if got := out["spec"].(map[string]any)["replicas"]; got != int64(4) {
		t.Errorf("replicas %#v, want 4", got)
	}
}

// TestCELValueDeferredByBind binds a file with CEL values without an
// object: they are checked as it applies, not refused.
func TestCELValueDeferredByBind(t *testing.T) {
	p := mustPatch(t, "f.kpatch", "[deployment.*]\nannotations.a: ${cel: object.metadata.name + params.x}\n")
	q, err := p.Bind(&Variables{Values: map[string]any{"x": "-y"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := q.Apply(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "w"}}, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := out["metadata"].(map[string]any)["annotations"]; !reflect.DeepEqual(got, map[string]any{"a": "w-y"}) {
		t.Errorf("annotations %v", got)
	}
	if n := len(q.Expressions()); n != 1 {
		t.Errorf("%d expressions, want 1", n)
	}
}
