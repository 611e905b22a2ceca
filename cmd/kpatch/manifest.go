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

// writeDocuments prints the objects as a YAML stream, or as JSON
// documents one after another.
func writeDocuments(w io.Writer, docs []*document, format string) error {
	bw := bufio.NewWriter(w)
	for i, d := range docs {
		var (
			b   []byte
			err error
		)
		if format == "json" {
			b, err = json.MarshalIndent(d.obj, "", "  ")
			b = append(b, '\n')
		} else {
			if i > 0 {
				bw.WriteString("---\n")
			}
			b, err = yaml.Marshal(d.obj)
		}
		if err != nil {
			return err
		}
		bw.Write(b)
	}
	return bw.Flush()
}
