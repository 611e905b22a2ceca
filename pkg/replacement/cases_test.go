package replacement

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the expected output of the testdata cases")

// testCase is one directory of testdata: input.yaml and replacements.yaml,
// and expected.yaml or expected-error.txt.
type testCase struct {
	name, dir    string
	input, repls []byte
}

func loadCases(t *testing.T) []testCase {
	t.Helper()
	dirs, err := filepath.Glob("testdata/*/replacements.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cases []testCase
	for _, f := range dirs {
		dir := filepath.Dir(f)
		c := testCase{name: filepath.Base(dir), dir: dir, repls: readFile(t, f)}
		c.input = readFile(t, filepath.Join(dir, "input.yaml"))
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatal("no cases in testdata")
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

func writeObjects(t *testing.T, objs []map[string]any) []byte {
	t.Helper()
	var b bytes.Buffer
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
	return b.Bytes()
}

// run parses and applies a case's replacements.
func (c testCase) run(in []map[string]any) ([]map[string]any, error) {
	r, err := Parse("replacements.yaml", c.repls)
	if err != nil {
		return nil, err
	}
	return r.Apply(in)
}

// TestCases runs every testdata case and compares with its expected
// output or error; -update rewrites them.
func TestCases(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			in := readObjects(t, c.input)
			before := writeObjects(t, in)
			out, err := c.run(in)
			var got []byte
			file := filepath.Join(c.dir, "expected.yaml")
			if err != nil {
				got, file = []byte(err.Error()+"\n"), filepath.Join(c.dir, "expected-error.txt")
			} else {
				got = writeObjects(t, out)
			}
			if *update {
				os.Remove(filepath.Join(c.dir, "expected.yaml"))
				os.Remove(filepath.Join(c.dir, "expected-error.txt"))
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, rerr := os.ReadFile(file)
			if rerr != nil {
				t.Fatalf("got %s:\n%s", filepath.Base(file), got)
			}
			if string(got) != string(want) {
				t.Errorf("%s:\ngot:\n%s\nwant:\n%s", filepath.Base(file), got, want)
			}
			if after := writeObjects(t, in); !bytes.Equal(before, after) {
				t.Errorf("the input objects were modified")
			}
		})
	}
}
