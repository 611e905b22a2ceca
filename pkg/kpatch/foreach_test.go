package kpatch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestForeachPerElement applies a foreach section once per container,
// its when per element, keys in brackets read per element.
func TestForeachPerElement(t *testing.T) {
	p := mustPatch(t, "f.kpatch", `[pod.*]
# kpatch:foreach: object.spec.containers
# kpatch:when: item.name != 'debug'
annotations[apparmor/${item.name}]?: runtime/default
annotations[image/${item.name}]: ${cel: item.image.split(':')[0]}
`)
	out, err := p.Apply(podWithContainers(2), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"apparmor/c0": "runtime/default", "apparmor/c1": "runtime/default", "image/c0": "registry.example/app", "image/c1": "registry.example/app"}
	if got := out["metadata"].(map[string]any)["annotations"]; !reflect.DeepEqual(got, want) {
		t.Errorf("annotations %v, want %v", got, want)
	}
}

// TestForeachErrors: a list known not to be one and a key with variables
// on a struct's field do not compile; a list that is none on the object
// fails the file there.
func TestForeachErrors(t *testing.T) {
	for _, c := range []struct{ src, err string }{
		{"[pod.*]\n# kpatch:foreach: size(object.spec.containers)\nlabels.a: b\n", "f.kpatch:2:19: foreach: must evaluate to a list but got int"},
		{"[pod.*]\n# kpatch:foreach: object.spec.containers\n# kpatch:when: 1\nlabels.a: b\n", "f.kpatch:3:16: when: must evaluate to bool but got int"},
		{"[pod.*]\n# kpatch:foreach: object.spec.containers\nspec[${item.name}]: b\n", "a key with variables is a key of a map"},
		{"[pod.*]\nlabels.a: b\n# kpatch:foreach: object.spec.containers\n", "f.kpatch:3:10: a section's # kpatch:foreach: goes directly after its header"},
		{"[pod.*]\nlabels.${values.a}: b\n", "f.kpatch:2:8: variables are allowed in values and in keys in brackets"},
	} {
		_, err := ParseAndCompile("f.kpatch", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v, want %q", c.src, err, c.err)
		}
	}
	p := mustPatch(t, "f.kpatch", "[deployment.*]\n# kpatch:foreach: object.spec.replicas\nlabels.a: b\n")
	_, err := p.Apply(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"replicas": int64(2)}}, ApplyOptions{})
	var list ErrorList
	if !errors.As(err, &list) || !strings.Contains(err.Error(), "f.kpatch:2:19: Deployment w: foreach: the expression gives a number, not a list") {
		t.Errorf("error %v", err)
	}
}
