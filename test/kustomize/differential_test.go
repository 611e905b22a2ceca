package kustomize

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"kpatch.dev/kpatch/pkg/replacement"
	kustomize "sigs.k8s.io/kustomize/api/filters/replacement"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/yaml"
)

// casesDir holds pkg/replacement's cases: a directory each, with
// input.yaml and replacements.yaml.
const casesDir = "../../pkg/replacement/testdata"

// testCase is one directory of casesDir.
type testCase struct {
	name, dir    string
	input, repls []byte
}

func loadCases(t *testing.T) []testCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(casesDir, "*", "replacements.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []testCase
	for _, f := range files {
		dir := filepath.Dir(f)
		cases = append(cases, testCase{name: filepath.Base(dir), dir: dir,
			repls: readFile(t, f), input: readFile(t, filepath.Join(dir, "input.yaml"))})
	}
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", casesDir)
	}
	return cases
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// skipReason returns why a case is not compared with kustomize, if it is
// not (its differential-skip.txt).
func (c testCase) skipReason() string {
	b, err := os.ReadFile(filepath.Join(c.dir, "differential-skip.txt"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// run parses and applies the case's replacements as pkg/replacement's own
// test does.
func (c testCase) run(t *testing.T) ([]map[string]any, error) {
	r, err := replacement.Parse("replacements.yaml", c.repls)
	if err != nil {
		return nil, err
	}
	return r.Apply(readObjects(t, c.input))
}

// readObjects reads a YAML stream as the kpatch CLI does: YAML to JSON,
// then a JSON decoder that gives int64 and float64 numbers.
func readObjects(t *testing.T, src []byte) []map[string]any {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(src)))
	var objs []map[string]any
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatal(err)
		}
		js, err := yaml.YAMLToJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		if string(js) == "null" {
			continue
		}
		var obj map[string]any
		if err := utiljson.Unmarshal(js, &obj); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, obj)
	}
}

// kustomizeApply runs a replacements file through kustomize's own
// replacement filter, as kustomize build does: the list decoded as a
// kustomization decodes it (unknown fields rejected), the resources read
// as YAML nodes, and each result printed through JSON.
func kustomizeApply(input, repls []byte) ([]map[string]any, error) {
	js, err := yaml.YAMLToJSON(repls)
	if err != nil {
		return nil, err
	}
	var file struct {
		Replacements []types.Replacement `json:"replacements"`
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, err
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(input), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, err
	}
	nodes, err = kustomize.Filter{Replacements: file.Replacements}.Filter(nodes)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(nodes))
	for i, n := range nodes {
		b, err := n.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if err := utiljson.Unmarshal(b, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// viaJSON gives objects the number types a JSON decoder gives, so that
// both sides compare alike.
func viaJSON(t *testing.T, objs []map[string]any) []map[string]any {
	t.Helper()
	b, err := json.Marshal(objs)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	if err := utiljson.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// keyPhrase is the part of a kustomize error that ours must contain: its
// first line, without kyaml's dump of the node.
func keyPhrase(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	msg, _, _ = strings.Cut(msg, ": node contents:")
	return strings.TrimPrefix(msg, "json: ")
}

// TestDifferential runs every case of pkg/replacement/testdata through
// kustomize's own replacement filter and asserts the same output, or that
// both fail and ours carries kustomize's message.
func TestDifferential(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			if reason := c.skipReason(); reason != "" {
				t.Skip(reason)
			}
			want, kerr := kustomizeApply(c.input, c.repls)
			got, err := c.run(t)
			switch {
			case kerr != nil && err == nil:
				t.Fatalf("kustomize fails, we do not: %v", kerr)
			case kerr == nil && err != nil:
				t.Fatalf("we fail, kustomize does not: %v", err)
			case kerr != nil:
				if p := keyPhrase(kerr); !strings.Contains(err.Error(), p) {
					t.Errorf("our error\n  %v\ndoes not contain kustomize's\n  %s", err, p)
				}
				return
			}
			if g, w := viaJSON(t, got), viaJSON(t, want); !reflect.DeepEqual(g, w) {
				t.Errorf("output differs from kustomize's:\nours:\n%s\nkustomize:\n%s", dump(t, g), dump(t, w))
			}
		})
	}
}

// dump prints objects as a YAML stream.
func dump(t *testing.T, objs []map[string]any) string {
	t.Helper()
	var b strings.Builder
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		y, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(y)
	}
	return b.String()
}
