package explain

import (
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/pkg/diff"
	"kpatch.dev/kpatch/pkg/kpatch"
)

func TestFieldChangesInDocumentOrder(t *testing.T) {
	before := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"},
		"spec": map[string]any{"containers": []any{
			map[string]any{"name": "a", "image": "x"},
			map[string]any{"name": "b", "image": "y"},
		}}}
	after := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "labels": map[string]any{"l": "v"}},
		"spec": map[string]any{"containers": []any{
			map[string]any{"name": "a", "image": "z"},
		}}}
	changes, err := diff.Changes("Pod p", before, after, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range FieldChanges(changes, before, after) {
		got = append(got, changeText(c))
	}
	want := []string{`+ metadata.labels: {"l":"v"}`, `~ spec.containers[name=a].image: "x" -> "z"`, `- spec.containers[name=b]: {"image":"y","name":"b"}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWriteText(t *testing.T) {
	o := NewObjectReport(kpatch.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "c"})
	key := &kpatch.OrderKey{Layer: 1}
	o.Add(FileOrder{File: "a.kpatch", Position: 1, Key: key, Description: "sets a"}.Report(Unchanged))
	failed := FileOrder{File: "b.kpatch", Position: 2}.Report(Failed)
	failed.Errors = []string{"b.kpatch:2:1: boom"}
	o.Add(failed)
	o.MissingRequired = []*MissingField{{Path: "data.x", File: "a.kpatch", Line: 3, Column: 9}}
	var b strings.Builder
	if err := Write(&b, &Report{Objects: []*ObjectReport{o}}, "text"); err != nil {
		t.Fatal(err)
	}
	want := `ConfigMap ns/c (v1)
  1. [layer 1, ` + key.Specificity.String() + `] a.kpatch: unchanged (matched; every value was already there)
       # sets a
  2. b.kpatch: failed
       b.kpatch:2:1: boom
  required and not set: data.x (${required} at a.kpatch:3:9)
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestWriteTextNamesAGeneratedName: an object that has only a
// generateName is named by it, as messages name it.
func TestWriteTextNamesAGeneratedName(t *testing.T) {
	o := NewObjectReport(kpatch.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: "shop", GenerateName: "web-7d9f-"})
	var b strings.Builder
	if err := Write(&b, &Report{Objects: []*ObjectReport{o}}, "text"); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(b.String(), "\n"); first != "Pod shop/web-7d9f-* (v1)" {
		t.Errorf("first line %q, want %q", first, "Pod shop/web-7d9f-* (v1)")
	}
}

// TestWriteYAMLReadsBack: the values of the changes are printed so that
// they read back, even the strings yaml.v3 prints as block scalars it
// cannot read.
func TestWriteYAMLReadsBack(t *testing.T) {
	o := NewObjectReport(kpatch.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Name: "c"})
	r := FileOrder{File: "p.yaml", Position: 1}.Report(Patched)
	var old, new any = "x", map[string]any{"k": []any{"\t0\n1", " a\nb"}}
	r.Changes = []*FieldChange{{Path: "data", Op: "replace", Old: &old, New: &new}}
	o.Add(r)
	var b strings.Builder
	if err := Write(&b, &Report{Objects: []*ObjectReport{o}}, "yaml"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Objects []struct {
			Files []struct {
				Changes []struct{ Old, New any }
			}
		}
	}
	if err := yaml.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	if c := got.Objects[0].Files[0].Changes[0]; c.Old != "x" || !reflect.DeepEqual(c.New, new) {
		t.Errorf("read back %#v:\n%s", c, b.String())
	}
}
