package manifest

import (
	"bytes"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/kpatch"
)

const stream = `# a comment before the first document
apiVersion: v1
kind: ConfigMap
metadata: {name: a}   # flow, kept
data: {x: "010"}
--- # the second one
# only a comment
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
`

func read(t *testing.T, text string) *Set {
	t.Helper()
	f, err := ReadFile("s.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return &Set{Files: []*File{f}, Docs: f.Documents()}
}

func TestReadFileSplitsAndNamesDocuments(t *testing.T) {
	m := read(t, stream)
	if len(m.Docs) != 2 {
		t.Fatalf("%d documents, want 2 (the comment-only one holds no object)", len(m.Docs))
	}
	if got := m.Docs[1].String(); got != "s.yaml:9: document 3" {
		t.Errorf("the List is %q", got)
	}
	var names []string
	for _, o := range m.Objects() {
		names = append(names, kpatch.RefOf(o, "").Name)
	}
	if got := strings.Join(names, ","); got != "a,b,c" {
		t.Errorf("objects %s, want a,b,c (a List's items one by one)", got)
	}
}

func TestWriteKeepsTheTextOfWhatDidNotChange(t *testing.T) {
	m := read(t, stream)
	var b bytes.Buffer
	if err := Write(&b, m, "yaml"); err != nil || b.String() != stream {
		t.Fatalf("err %v, got:\n%s", err, b.String())
	}
	p, err := kpatch.ParseAndCompile("p.kpatch", []byte("[configmap.c]\ndata.y: new\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Docs {
		items := d.Items()
		for i := range items {
			if items[i], err = kpatch.Apply(items[i], []*kpatch.Patch{p}, kpatch.ApplyOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		d.SetItems(items)
	}
	b.Reset()
	if err := Write(&b, m, "yaml"); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(stream, "name: c}}", `name: c}, data: {"y": new}}`, 1)
	if b.String() != want {
		t.Errorf("only the changed item is written anew; got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestReadFileErrors(t *testing.T) {
	for text, want := range map[string]string{
		"a: [\n":                              "s.yaml:1: document 1: invalid YAML",
		"apiVersion: v1\nkind: A\n---\n- x\n": "s.yaml:4: document 2: expected a Kubernetes object",
		"kind: A\n":                           "apiVersion not set",
	} {
		if _, err := ReadFile("s.yaml", []byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", text, err, want)
		}
	}
}
