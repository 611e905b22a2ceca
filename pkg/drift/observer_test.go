package drift

import (
	"context"
	"reflect"
	"testing"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

func patchFile(t *testing.T, name, src string) apply.File {
	t.Helper()
	p, err := kpatch.ParseAndCompile(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return apply.PatchFile{Patch: p}
}

// TestObserverImmutable: admitted as an UPDATE, a Pod's container
// resources are a field an UPDATE may not change, as the apply loop
// decides it: the file is recorded with that field, and the finding is
// not reconcilable though the file opts in; its image may change, so the
// image file is recorded with the fields it changes, reconcilable.
func TestObserverImmutable(t *testing.T) {
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web", "namespace": "a"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "main", "image": "app:1"}}}}
	resources := patchFile(t, "resources.kpatch", "# kpatch:reconcile: true\n[pod.web.containers.name=main]\nresources.requests.cpu: 250m\n")
	image := patchFile(t, "image.kpatch", "# kpatch:reconcile: true\n[pod.web.containers.name=main]\nimage: app:2\n")
	same := patchFile(t, "same.kpatch", "[pod.web]\nmetadata.name: web\n")
	var obs Observer
	if _, err := apply.RunObject(context.Background(), pod, []apply.File{resources, image, same}, &apply.Options{Operation: "UPDATE", Observer: &obs}); err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{File: "resources.kpatch", Fields: []string{"spec.containers"}, Reconcile: true, Immutable: "spec.containers"},
		{File: "image.kpatch", Fields: []string{"/spec/containers/0/image"}, Reconcile: true},
	}
	if got := obs.Files(); !reflect.DeepEqual(got, want) {
		t.Fatalf("files %+v\nwant %+v", got, want)
	}
	if f := (Finding{Files: want[:1]}); f.Reconcilable() {
		t.Error("a finding whose reconcile file changes an immutable field is reconcilable")
	}
	if f := (Finding{Files: want}); !f.Reconcilable() {
		t.Error("a finding with a reconcile file an UPDATE may apply is not reconcilable")
	}
	if f := (Finding{Files: []FileChange{{File: "x", Fields: []string{"/a"}}}}); f.Reconcilable() {
		t.Error("a finding of a file without reconcile is reconcilable")
	}
}

// TestObserverAppliedAgain: a loop that applies the files again tells the
// Observer each file again; it records what each did last, once: a file
// that patched in the first pass and failed in the second is not
// recorded, one that patched in both is recorded once.
func TestObserverAppliedAgain(t *testing.T) {
	a := patchFile(t, "a.kpatch", "[pod.web]\nmetadata.labels.a: x\n")
	b := patchFile(t, "b.kpatch", "[pod.web]\nmetadata.labels.b: x\n")
	before := map[string]any{"metadata": map[string]any{"name": "web"}}
	after := map[string]any{"metadata": map[string]any{"name": "web", "labels": map[string]any{"a": "x"}}}
	var obs Observer
	obs.Observe(0, apply.FileRun{File: a, Result: apply.Patched}, before, after)
	obs.Observe(0, apply.FileRun{File: b, Result: apply.Patched}, before, after)
	obs.Observe(0, apply.FileRun{File: a, Result: apply.Patched}, before, after)
	obs.Observe(0, apply.FileRun{File: b, Result: apply.Failed}, before, before)
	want := []FileChange{{File: "a.kpatch", Fields: []string{"/metadata/labels"}}}
	if got := obs.Files(); !reflect.DeepEqual(got, want) {
		t.Fatalf("files %+v\nwant %+v", got, want)
	}
}
