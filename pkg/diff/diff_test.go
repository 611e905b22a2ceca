package diff

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/internal/objecttest"
	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// TestDiffRoundTripsConformancePairs checks apply(BASE, diff(BASE, TARGET))
// == TARGET for the input and expected objects of every conformance case,
// in both output formats.
func TestDiffRoundTripsConformancePairs(t *testing.T) {
	dirs, err := filepath.Glob("../../test/conformance/testdata/*/expected.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no conformance cases: %v", err)
	}
	for _, expected := range dirs {
		dir := filepath.Dir(expected)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if unnamed(t, filepath.Join(dir, "input.yaml")) {
				// kpatch diff pairs objects by name, and refuses one that
				// has only a generateName (TestDiffRefusesUnnamedObjects)
				t.Skip("the input holds an object without metadata.name")
			}
			base := readObjects(t, "BASE", filepath.Join(dir, "input.yaml"))
			target := readObjects(t, "TARGET", expected)
			checkRoundTrip(t, base, target)
		})
	}
}

// unnamed reports whether a manifest file holds an object that a diff
// cannot pair, one without metadata.name: ObjectsOf refuses it.
func unnamed(t testing.TB, path string) bool {
	t.Helper()
	_, err := ObjectsOf("BASE", readDocuments(t, path), "")
	return errors.Is(err, errNotAnObject)
}

// TestDiffRefusesUnnamedObjects: an object with only a generateName (a
// controller's Pod) has no name to pair it by; the diff says so instead of
// pairing it with another.
func TestDiffRefusesUnnamedObjects(t *testing.T) {
	docs, err := manifest.ReadDocuments("in.yaml", strings.NewReader("apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: web-\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ObjectsOf("BASE", docs, ""); !errors.Is(err, errNotAnObject) {
		t.Errorf("ObjectsOf of an object with only a generateName: %v, want %v", err, errNotAnObject)
	}
}

// readDocuments reads the documents of a manifest file.
func readDocuments(t testing.TB, path string) []*manifest.Document {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := manifest.ReadDocuments(path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// readObjects reads the objects of a manifest file for a diff.
func readObjects(t testing.TB, side, path string) []*Object {
	t.Helper()
	objs, err := ObjectsOf(side, readDocuments(t, path), "")
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// checkRoundTrip diffs base and target in both formats and applies each
// printed patch to base, once and twice: the paired objects must come out
// as in target, the others unchanged. A .kpatch file may refuse a change
// it cannot write; the YAML patch file may not.
func checkRoundTrip(t testing.TB, base, target []*Object) {
	t.Helper()
	pairs, _ := PairObjects(base, target, false)
	for _, format := range []string{"kpatch", "yaml"} {
		out, err := Print(format, pairs, base, target)
		if format == "kpatch" && errors.Is(err, ErrNeedsYAML) {
			continue
		}
		if err != nil {
			t.Fatalf("-o %s: %v", format, err)
		}
		p, err := kpatch.ParseAndCompile("diff."+format, out)
		if err != nil {
			t.Fatalf("-o %s: the output does not compile: %v\n%s", format, err, out)
		}
		targets := map[Key]*Object{}
		for _, o := range target {
			targets[o.Key] = o
		}
		for _, b := range base {
			got, err := kpatch.Apply(b.Obj, []*kpatch.Patch{p}, kpatch.ApplyOptions{})
			want := b.Obj
			if o, ok := targets[b.Key]; ok {
				want = o.Obj
			}
			if err != nil || !jsonvalue.Equal(got, want) {
				t.Fatalf("-o %s: %s: err %v\ngot  %s\nwant %s\npatch:\n%s", format, b.Ref, err, brief(got), brief(want), out)
			}
			// the webhook may apply a registry file twice to one object
			again, err := kpatch.Apply(got, []*kpatch.Patch{p}, kpatch.ApplyOptions{})
			if err != nil || !jsonvalue.Equal(again, want) {
				t.Fatalf("-o %s: %s: applied twice: err %v\n%v\npatch:\n%s", format, b.Ref, err, firstDifference(again, want, "", ""), out)
			}
		}
	}
}

func TestSelfCheckFindsTheFirstDifference(t *testing.T) {
	base := readObjectsText(t, "BASE", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: m, image: a}]}\n")
	target := readObjectsText(t, "TARGET", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: m, image: b}]}\n")
	targets := map[Key]*Object{target[0].Key: target[0]}
	m, err := selfCheck("wrong.kpatch", []byte("[pod.p.containers[name=m]]\nimage: c\n"), base, targets)
	if err != nil || m == nil || m.loc != "/spec/containers/0/image" || m.list != "/spec/containers" || m.got != "c" || m.want != "b" {
		t.Fatalf("err %v, mismatch %+v", err, m)
	}
	if !errors.Is(m, errSelfCheck) || !strings.Contains(m.Error(), `Pod p: internal error: the patch does not turn BASE into TARGET (please report it with both inputs) at /spec/containers/0/image: got "c", want "b"`) {
		t.Errorf("message: %v", m)
	}
	// what the self-check asks for: the list written whole
	changes, err := Changes("Pod p", base[0].Obj, target[0].Obj, map[string]bool{m.list: true})
	if err != nil || len(changes) != 1 || changes[0].Path.String() != "spec.containers" || changes[0].rebuild != rebuildClear {
		t.Errorf("err %v, changes %+v", err, changes)
	}
	if _, err := selfCheck("broken.kpatch", []byte("[pod.p\n"), base, targets); !errors.Is(err, errSelfCheck) {
		t.Errorf("a patch that does not compile: %v", err)
	}
}

// readObjectsText reads the objects of a manifest text for a diff.
func readObjectsText(t testing.TB, side, text string) []*Object {
	t.Helper()
	docs, err := manifest.ReadDocuments(side, strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := ObjectsOf(side, docs, "")
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// BenchmarkDiff diffs and checks a Deployment of n containers, at n and
// 10n.
func BenchmarkDiff(b *testing.B) {
	for _, n := range []int{10, 100} {
		base := readObjectsText(b, "BASE", objecttest.DeploymentText(n, 1))
		target := readObjectsText(b, "TARGET", objecttest.DeploymentText(n, 2))
		pairs, _ := PairObjects(base, target, false)
		for _, format := range []string{"kpatch", "yaml"} {
			b.Run(fmt.Sprintf("containers=%d/%s", n, format), func(b *testing.B) {
				for b.Loop() {
					if _, err := Print(format, pairs, base, target); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
