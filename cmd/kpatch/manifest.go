package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// document is one object of an input stream. A List's items are patched
// one by one.
type document struct {
	obj map[string]any
}

// readDocuments reads a YAML (or JSON) stream; empty documents are
// skipped, anything that is not an object is an error.
func readDocuments(name string, r io.Reader) ([]*document, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var docs []*document
	for n := 1; ; n++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, n, err)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		js, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, n, err)
		}
		if string(js) == "null" {
			continue
		}
		var obj map[string]any
		if err := utiljson.Unmarshal(js, &obj); err != nil {
			return nil, fmt.Errorf("%s: document %d: expected a Kubernetes object (a map), got %s", name, n, strings.SplitN(string(js), "\n", 2)[0])
		}
		docs = append(docs, &document{obj: obj})
	}
}

// apply patches the object, or each item of a List.
func (d *document) apply(patches []*kpatch.Patch, opts kpatch.ApplyOptions) error {
	items, isList := d.obj["items"].([]any)
	kind, _ := d.obj["kind"].(string)
	if !isList || !strings.HasSuffix(kind, "List") {
		out, err := kpatch.Apply(d.obj, patches, opts)
		d.obj = out
		return err
	}
	var errs kpatch.ErrorList
	patched := make([]any, len(items))
	for i, it := range items {
		patched[i] = it
		if m, ok := it.(map[string]any); ok {
			out, err := kpatch.Apply(m, patches, opts)
			patched[i] = out
			var list kpatch.ErrorList
			if errors.As(err, &list) {
				errs = append(errs, list...)
			}
		}
	}
	out := make(map[string]any, len(d.obj))
	for k, v := range d.obj {
		out[k] = v
	}
	out["items"] = patched
	d.obj = out
	return errs.Err()
}

// writeDocuments prints the objects as a YAML stream or, as kubectl
// does, as JSON: one object alone, several (or none) in one v1 List.
func writeDocuments(w io.Writer, docs []*document, format string) error {
	if format == "json" {
		return writeJSON(w, docs)
	}
	bw := bufio.NewWriter(w)
	for i, d := range docs {
		b, err := yaml.Marshal(d.obj)
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString("---\n")
		}
		bw.Write(b)
	}
	return bw.Flush()
}

// writeJSON prints one object, or a v1 List of the objects.
func writeJSON(w io.Writer, docs []*document) error {
	var v any
	if len(docs) == 1 {
		v = docs[0].obj
	} else {
		items := make([]any, len(docs))
		for i, d := range docs {
			items[i] = d.obj
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

// items returns the objects the document holds: the object itself, or a
// List's items.
func (d *document) items() []map[string]any {
	items, isList := d.obj["items"].([]any)
	kind, _ := d.obj["kind"].(string)
	if !isList || !strings.HasSuffix(kind, "List") {
		return []map[string]any{d.obj}
	}
	var out []map[string]any
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// objects returns the references of the objects the document holds.
func (d *document) objects(namespace string) []kpatch.ObjectRef {
	var refs []kpatch.ObjectRef
	for _, obj := range d.items() {
		refs = append(refs, objectRef(obj, namespace))
	}
	return refs
}

// objectRef identifies an object as the engine matches it: namespace is
// assumed when the object has none.
func objectRef(obj map[string]any, namespace string) kpatch.ObjectRef {
	ref := kpatch.ObjectRef{Namespace: namespace}
	ref.APIVersion, _ = obj["apiVersion"].(string)
	ref.Kind, _ = obj["kind"].(string)
	if md, ok := obj["metadata"].(map[string]any); ok {
		ref.Name, _ = md["name"].(string)
		if ns, _ := md["namespace"].(string); ns != "" {
			ref.Namespace = ns
		}
	}
	return ref
}

// readManifests reads the objects of every file ("-" is standard input).
func readManifests(files []string, stdin io.Reader) ([]*document, error) {
	var docs []*document
	for _, path := range files {
		name, data, err := readPath(path, stdin)
		if err != nil {
			return nil, err
		}
		d, err := readDocuments(name, bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		docs = append(docs, d...)
	}
	return docs, nil
}
