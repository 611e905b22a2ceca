package kpatch

import (
	"errors"
	"reflect"
	"testing"
)

// twoContainers is a Deployment whose containers are app and proxy, and
// noMain one whose only container is worker.
const (
	twoContainers = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - {name: app, image: app:1}
      - {name: proxy, image: proxy:1}
`
	noMain = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  template:
    spec:
      containers:
      - {name: worker, image: worker:1}
`
)

func TestTargetSingle(t *testing.T) {
	for _, tc := range []struct {
		header string
		single bool
	}{
		{"[deployment.web]", true},
		{"[prod/deployment.web]", true},
		{"[p*/deployment.web]", true},
		{"[deployment(apps).web]", true},
		{"[deployment.[web.v1]]", true},
		{"[deployment.*]", false},
		{"[deployment.web-*]", false},
		{"[deployment.web?]", false},
		{"[*.web]", false},
		{"[deploy*.web]", false},
		{"[@workload.web]", false},
	} {
		p := mustPatch(t, "f", tc.header+"\nlabels.a: b\n")
		if got := p.sections[0].target.Single(); got != tc.single {
			t.Errorf("%s: Single() = %v, want %v", tc.header, got, tc.single)
		}
	}
}

// TestSelectorFiltersUnderGlob: under a target naming no single object a
// selector, or an insertion's anchor, that matches no item does nothing
// on that object and is no error; the file's other entries apply.
func TestSelectorFiltersUnderGlob(t *testing.T) {
	for _, tc := range []struct {
		name, src string
	}{
		{"entry under name glob", "[deployment.*]\nlabels.a: b\ncontainers.name=main.image: x\n"},
		{"header under name glob", "[deployment.*]\nlabels.a: b\n\n[deployment.w*.containers.name=main]\nimage: x\n"},
		{"absent list", "[deployment.*]\nlabels.a: b\ninitContainers.name=setup.image: x\n"},
		{"kind glob", "[deploy*.worker]\nlabels.a: b\ncontainers.name=main.image: x\n"},
		{"workload", "[@workload.*]\nlabels.a: b\ncontainers.name=main.image: x\n"},
		{"allContainers", "[@workload.*]\nlabels.a: b\nallContainers.name=main.image: x\n"},
		{"insertion anchor", "[deployment.*]\nlabels.a: b\n\n[deployment.*.containers[+name=main]]\nname: sidecar\nimage: s:1\n"},
		{"deep selector", "[deployment.*]\nlabels.a: b\ncontainers.name=worker.env.name=X.value: y\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := mustObject(t, noMain)
			before := deepCopy(t, obj)
			out, err := Apply(obj, []*Patch{mustPatch(t, "f", tc.src)}, ApplyOptions{})
			if err != nil {
				t.Fatalf("want no error, got %v", err)
			}
			want := deepCopy(t, before)
			want["metadata"].(map[string]any)["labels"] = map[string]any{"a": "b"}
			if got := normalize(t, out); !reflect.DeepEqual(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
			if !reflect.DeepEqual(obj, before) {
				t.Error("the input object was modified")
			}
		})
	}
}

// TestSelectorErrorUnderExactTarget: under kind.name a selector that
// matches nothing stays an error, the typo check, and the file is left
// out of the object.
func TestSelectorErrorUnderExactTarget(t *testing.T) {
	for _, src := range []string{
		"[deployment.worker]\nlabels.a: b\ncontainers.name=main.image: x\n",
		"[deployment.worker.containers.name=main]\nimage: x\n",
		"[deployment.worker]\ninitContainers.name=setup.image: x\n",
		"[deployment.worker.containers[+name=main]]\nname: sidecar\n",
		"[deployment.worker]\nallContainers.name=main.image: x\n",
		"[deployment.*]\nlabels.a: b\n\n[deployment.worker]\ncontainers.name=main.image: x\n",
	} {
		obj := mustObject(t, noMain)
		out, err := Apply(obj, []*Patch{mustPatch(t, "f", src)}, ApplyOptions{})
		if !errors.Is(err, ErrNoMatch) {
			t.Errorf("%q: want ErrNoMatch, got %v", src, err)
		}
		if !reflect.DeepEqual(normalize(t, out), normalize(t, obj)) {
			t.Errorf("%q: a failed file changed the object: %v", src, out)
		}
	}
}

// TestSelectorFilterPerItem: under a glob, `*` followed by a selector
// reaches the items that have the selected item and skips the others.
func TestSelectorFilterPerItem(t *testing.T) {
	obj := mustObject(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - {name: app, env: [{name: LEVEL, value: info}]}
      - {name: proxy}
`)
	p := mustPatch(t, "f", "[deployment.*]\ncontainers.*.env.name=LEVEL.value: debug\n")
	out, err := Apply(obj, []*Patch{p}, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs := normalize(t, out)["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	want := []any{
		map[string]any{"name": "app", "env": []any{map[string]any{"name": "LEVEL", "value": "debug"}}},
		map[string]any{"name": "proxy"},
	}
	if !reflect.DeepEqual(cs, want) {
		t.Errorf("got %v, want %v", cs, want)
	}
}

// TestSelectorFilterStillApplies: a filter that does match applies as a
// selector does, on the same glob target.
func TestSelectorFilterStillApplies(t *testing.T) {
	p := mustPatch(t, "f", "[@workload.*.containers.name=proxy]\nimage: proxy:2\n")
	out, err := Apply(mustObject(t, twoContainers), []*Patch{p}, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs := normalize(t, out)["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	if got := cs[1].(map[string]any)["image"]; got != "proxy:2" {
		t.Errorf("proxy image = %v, want proxy:2", got)
	}
	if got := cs[0].(map[string]any)["image"]; got != "app:1" {
		t.Errorf("app image = %v, want app:1", got)
	}
}

// TestSequenceFilteredFileUnchanged: a file whose only entry goes
// through a selector that matches nothing leaves the object unchanged
// in a Sequence, with no error.
func TestSequenceFilteredFileUnchanged(t *testing.T) {
	seq := NewSequence(t.Context(), mustObject(t, noMain), ApplyOptions{})
	defer seq.Close()
	changed, err := seq.Apply(mustPatch(t, "f", "[deployment.*.containers[+name=main]]\nname: sidecar\nimage: s:1\n"))
	if err != nil || changed {
		t.Errorf("changed=%v err=%v, want unchanged and no error", changed, err)
	}
}

// BenchmarkSelectorFilter applies a @workload file whose selector is a
// filter to a Deployment that has the selected container (applied) and
// one that has not (filtered out).
func BenchmarkSelectorFilter(b *testing.B) {
	p := mustPatch(b, "f", "[@workload.*.containers.name=proxy]\nimage: proxy:2\n\n[@workload.*.containers[+name=proxy]]\nname: shipper\nimage: s:1\n")
	for _, bc := range []struct{ name, obj string }{{"matched", twoContainers}, {"filtered", noMain}} {
		obj := mustObject(b, bc.obj)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Apply(obj, []*Patch{p}, ApplyOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
