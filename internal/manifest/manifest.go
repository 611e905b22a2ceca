package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// Document is one object of an input stream. A List's items are patched
// one by one. orig is the object as read; text, the document as written,
// is what apply writes back where the patches changed nothing.
type Document struct {
	Obj    map[string]any
	orig   map[string]any
	file   string
	number int // the document's number in its file, from 1
	line   int // the line of the file its text starts at, from 1
	Text   []byte
	json   bool // written in JSON: printed from the object, as YAML
}

// String names the document in messages by the line it starts at and
// its number: "app.yaml:12: document 2".
func (d *Document) String() string {
	return d.at(d.line)
}

// at names the document at a line of its file: "app.yaml:14: document 2".
func (d *Document) at(line int) string {
	return fmt.Sprintf("%s:%d: document %d", d.file, line, d.number)
}

// ReadDocuments reads the objects of a YAML (or JSON) stream; empty
// documents are skipped, anything that is not an object is an error.
func ReadDocuments(name string, r io.Reader) ([]*Document, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	f, err := ReadFile(name, data)
	if err != nil {
		return nil, err
	}
	return f.Documents(), nil
}

// decodeDocument decodes the text of one document: nil for an empty one
// (blank, or comments only). An object must name its apiVersion and kind,
// as kubectl requires; so must the items of a List.
func decodeDocument(d *Document) (map[string]any, error) {
	if len(bytes.TrimSpace(d.Text)) == 0 {
		return nil, nil
	}
	js, err := yaml.YAMLToJSON(d.Text)
	if err != nil {
		return nil, d.syntaxError(err)
	}
	if string(js) == "null" {
		return nil, nil
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(js, &obj); err != nil {
		return nil, fmt.Errorf("%s: expected a Kubernetes object (a map), got %s", d, strings.SplitN(string(js), "\n", 2)[0])
	}
	if err := checkTypeMeta(obj); err != nil {
		return nil, fmt.Errorf("%s: %w", d, err)
	}
	return obj, nil
}

// yamlLine finds the line that the YAML library names in an error,
// counted from the start of the document: "yaml: line 3: message".
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError places a YAML syntax error in the file: at the line the
// YAML library names (it gives no column), else at the document's start.
func (d *Document) syntaxError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return fmt.Errorf("%s: invalid YAML: %s", d.at(d.line+n-1), m[2])
	}
	return fmt.Errorf("%s: invalid YAML: %s", d, strings.TrimPrefix(msg, "yaml: "))
}

// checkTypeMeta fails when an object does not name its apiVersion and
// kind, or when an item of a List does not.
func checkTypeMeta(obj map[string]any) error {
	var missing []string
	for _, field := range []string{"apiVersion", "kind"} {
		if s, _ := obj[field].(string); s == "" {
			missing = append(missing, field)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s not set: every Kubernetes object names its apiVersion and kind", strings.Join(missing, " and "))
	}
	items, isList := obj["items"].([]any)
	if kind := obj["kind"].(string); !isList || !strings.HasSuffix(kind, "List") {
		return nil
	}
	for i, it := range items {
		item, ok := it.(map[string]any)
		if !ok {
			return fmt.Errorf("item %d of the %s is not an object", i+1, obj["kind"])
		}
		if err := checkTypeMeta(item); err != nil {
			return fmt.Errorf("item %d of the %s: %w", i+1, obj["kind"], err)
		}
	}
	return nil
}

// Write prints the objects as a YAML stream or, as kubectl
// does, as JSON: one object alone, several (or none) in one v1 List. The
// YAML stream is the input as it was written wherever the patches did not
// change it: every document, comment and separator; a changed document
// keeps its text except where its object changed (yamledit.Rewrite).
// JSON input is printed from its objects.
func Write(w io.Writer, m *Set, format string) error {
	if format == "json" {
		return writeJSON(w, m.Docs)
	}
	bw := bufio.NewWriter(w)
	var last []byte // the end of what was written, to join files
	for _, f := range m.Files {
		out, err := f.yaml()
		if err != nil {
			return err
		}
		if len(out) == 0 {
			continue
		}
		if len(last) > 0 {
			if last[len(last)-1] != '\n' {
				bw.WriteByte('\n')
			}
			if !startsWithSeparator(out) {
				bw.WriteString("---\n")
			}
		}
		bw.Write(out)
		last = out
	}
	return bw.Flush()
}

// writeJSON prints one object, or a v1 List of the objects.
func writeJSON(w io.Writer, docs []*Document) error {
	var v any
	if len(docs) == 1 {
		v = docs[0].Obj
	} else {
		items := make([]any, len(docs))
		for i, d := range docs {
			items[i] = d.Obj
		}
		v = map[string]any{
			"apiVersion": "v1",
			"kind":       "List",
			"metadata":   map[string]any{"resourceVersion": ""},
			"items":      items,
		}
	}
	b, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Items returns the objects the document holds: the object itself, or a
// List's items.
func (d *Document) Items() []map[string]any {
	items, isList := d.listItems()
	if !isList {
		return []map[string]any{d.Obj}
	}
	var out []map[string]any
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// listItems returns the items of a List (a kind ending in List with
// items); isList is false for any other object.
func (d *Document) listItems() (items []any, isList bool) {
	items, isList = d.Obj["items"].([]any)
	kind, _ := d.Obj["kind"].(string)
	return items, isList && strings.HasSuffix(kind, "List")
}

// objects returns the references of the objects the document holds.
func (d *Document) objects(namespace string) []kpatch.ObjectRef {
	var refs []kpatch.ObjectRef
	for _, obj := range d.Items() {
		refs = append(refs, kpatch.RefOf(obj, namespace))
	}
	return refs
}

// Set are the input streams of a command: the files as written,
// and the objects in input order.
type Set struct {
	Files []*File
	Docs  []*Document
}

// Names returns the names of the files, as messages give them.
func (m *Set) Names() []string {
	names := make([]string, len(m.Files))
	for i, f := range m.Files {
		names[i] = f.name
	}
	return names
}

// ReadFiles reads the objects of every file ("-" is standard input).
func ReadFiles(files []string, src filesource.Source) (*Set, error) {
	m := &Set{}
	for _, path := range files {
		name, data, err := src.Read(path)
		if err != nil {
			return nil, err
		}
		f, err := ReadFile(name, data)
		if err != nil {
			return nil, err
		}
		m.Files = append(m.Files, f)
		m.Docs = append(m.Docs, f.Documents()...)
	}
	return m, nil
}

// ObjectsOf returns the references of every object of the documents.
func ObjectsOf(docs []*Document, namespace string) []kpatch.ObjectRef {
	var refs []kpatch.ObjectRef
	for _, d := range docs {
		refs = append(refs, d.objects(namespace)...)
	}
	return refs
}

// Objects returns the objects of every document, in input order: each
// object, or each item of a List.
func (m *Set) Objects() []map[string]any {
	var objs []map[string]any
	for _, d := range m.Docs {
		objs = append(objs, d.Items()...)
	}
	return objs
}
