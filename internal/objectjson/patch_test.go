package objectjson

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gomodules.xyz/jsonpatch/v2"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// opStrings renders operations comparably: op, path and value as JSON.
func opStrings(t *testing.T, ops []jsonpatch.Operation) []string {
	t.Helper()
	out := make([]string, len(ops))
	for i, op := range ops {
		v, err := json.Marshal(op.Value)
		if err != nil {
			t.Fatal(err)
		}
		var norm any
		_ = json.Unmarshal(v, &norm)
		v, _ = json.Marshal(norm)
		out[i] = op.Operation + " " + op.Path + " " + string(v)
	}
	slices.Sort(out)
	return out
}

// TestCreatePatchMatchesJSONPatch holds createPatch to the operations
// jsonpatch.CreatePatch computes between the marshalled documents, on
// every object and patch set of the conformance suite.
func TestCreatePatchMatchesJSONPatch(t *testing.T) {
	compared := 0
	for _, c := range appliedCases(t) {
		dir, obj, out := c.dir, c.in, c.out
		got, err := createPatch(obj, out)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(obj)
		b, _ := json.Marshal(out)
		want, err := jsonpatch.CreatePatch(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := opStrings(t, got), opStrings(t, want); !slices.Equal(g, w) {
			t.Errorf("%s: operations differ\ngot:  %s\nwant: %s", dir, strings.Join(g, "\n      "), strings.Join(w, "\n      "))
		}
		encoded, err := encodePatch(got)
		if err != nil {
			t.Fatal(err)
		}
		var decoded []jsonpatch.Operation
		if err := json.Unmarshal(encoded, &decoded); err != nil {
			t.Fatalf("%s: encoded patch is not JSON: %v\n%s", dir, err, encoded)
		}
		if g, w := opStrings(t, decoded), opStrings(t, want); !slices.Equal(g, w) {
			t.Errorf("%s: encoded operations differ\n%s", dir, encoded)
		}
		direct, err := JSONPatch(obj, out)
		if err != nil || (direct == nil) != (len(want) == 0) {
			t.Fatalf("%s: JSONPatch %s, %v; want %d operations", dir, direct, err, len(want))
		}
		decoded = nil
		if direct != nil {
			if err := json.Unmarshal(direct, &decoded); err != nil {
				t.Fatalf("%s: JSONPatch is not JSON: %v\n%s", dir, err, direct)
			}
		}
		if g, w := opStrings(t, decoded), opStrings(t, want); !slices.Equal(g, w) {
			t.Errorf("%s: JSONPatch's operations differ\n%s", dir, direct)
		}
		compared++
	}
	if compared < 50 {
		t.Fatalf("only %d objects compared", compared)
	}
}

// appliedCase is an object of a conformance case and the object its
// patch files make of it.
type appliedCase struct {
	dir     string
	in, out map[string]any
}

// appliedCases applies the patch files of every conformance case, and of
// the benchmark set, that compile to each of its objects.
func appliedCases(t *testing.T) []appliedCase {
	dirs, _ := filepath.Glob("../../test/conformance/testdata/*")
	dirs = append(dirs, "../../pkg/kpatch/testdata/bench")
	var cases []appliedCase
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.kpatch"))
		yamls, _ := filepath.Glob(filepath.Join(dir, "[0-9]*.yaml"))
		files = append(files, yamls...)
		var patches []*kpatch.Patch
		for _, f := range files {
			src, _ := os.ReadFile(f)
			if p, err := kpatch.ParseAndCompile(f, src); err == nil {
				patches = append(patches, p.WithVariables(&kpatch.Variables{}))
			}
		}
		for _, obj := range objectsIn(t, dir) {
			out, _ := kpatch.Apply(obj, patches, kpatch.ApplyOptions{})
			cases = append(cases, appliedCase{dir, obj, out})
		}
	}
	return cases
}

// TestJSONPatchIsTheSameEveryTime holds JSONPatch to one answer, byte
// for byte, for one change: replicas of the webhook, and one replica
// asked twice, answer alike (the API server's audit log records it),
// although Go's map order differs between calls.
func TestJSONPatchIsTheSameEveryTime(t *testing.T) {
	compared := 0
	for _, c := range appliedCases(t) {
		first, err := JSONPatch(c.in, c.out)
		if err != nil || first == nil {
			continue
		}
		compared++
		for range 20 {
			again, err := JSONPatch(c.in, c.out)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(first) {
				t.Fatalf("%s: the JSONPatch changed between calls\nfirst: %s\nagain: %s", c.dir, first, again)
			}
		}
	}
	if compared < 10 {
		t.Fatalf("only %d patched objects compared", compared)
	}
}

// objectsIn are the objects of a conformance case.
func objectsIn(t *testing.T, dir string) []map[string]any {
	var objs []map[string]any
	for _, name := range []string{"input.yaml", "deployment.json"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				break
			}
			var obj map[string]any
			if err := utiljson.Unmarshal(raw, &obj); err == nil && obj != nil {
				objs = append(objs, obj)
			}
		}
		f.Close()
	}
	return objs
}

// TestEncodePatchAsEncodingJSON holds encodePatch to encoding/json's
// output without HTML escaping, byte for byte, on values that encoders tend to write apart:
// floats near the switch to exponents, HTML characters, escapes, invalid
// UTF-8, nested maps (sorted keys), and to the error on non-finite floats.
func TestEncodePatchAsEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, "x", "<a&b>", "é\u2028\u2029\x01\x1f\n\r\t\"\\/", "a\xffb", int64(-9223372036854775808), int64(42),
		1.5, 1e20, 1e21, 123456789e15, 1e-6, 1e-7, 0.1, math.Copysign(0, -1), 3.0, 1.0000000000000002,
		map[string]any{"z": int64(1), "a": []any{map[string]any{"b": nil, "A": "é"}}, "<": ">"},
		[]any{}, map[string]any{}, -1e21, 5e-324, 1.7976931348623157e308, -1.5e-7, "\xff", "a\xe2\x80", "\u007f\u0080\U0001F600",
		map[string]string{"b": "<", "a": "x"}, int64(9223372036854775807),
	}
	var ops []jsonpatch.Operation
	for i, v := range values {
		ops = append(ops, jsonpatch.NewOperation("add", "/a~1b/"+strings.Repeat("x", i)+"/<é>", v))
	}
	ops = append(ops, jsonpatch.NewOperation("remove", "/gone", nil))
	got, err := encodePatch(ops)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteByte('[')
	for i, op := range ops {
		if i > 0 {
			want.WriteByte(',')
		}
		want.WriteString(`{"op":"` + op.Operation + `","path":` + marshalUnescaped(op.Path))
		if op.Operation != "remove" {
			want.WriteString(`,"value":` + marshalUnescaped(op.Value))
		}
		want.WriteByte('}')
	}
	want.WriteByte(']')
	if string(got) != want.String() {
		t.Errorf("got  %s\nwant %s", got, want.String())
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), map[string]any{"a": []any{math.Inf(-1)}}} {
		if out, err := encodePatch([]jsonpatch.Operation{jsonpatch.NewOperation("add", "/x", bad)}); err == nil {
			t.Errorf("%v encoded: %s", bad, out)
		}
	}
}

// marshalUnescaped is json.Marshal without HTML escaping.
func marshalUnescaped(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// TestPatchBufferKeepsNoKeys checks that JSONPatch's scratch goes back to
// its pool without the keys of the last object: they are slices of that
// request's document, which they would keep in memory.
func TestPatchBufferKeepsNoKeys(t *testing.T) {
	p := &patchBuffer{keys: make([]string, 0, 8)}
	p.keys = append(p.keys, "metadata", "labels", "spec")
	p.keys = p.keys[:0] // as the walk leaves it
	p.put()
	for i, k := range p.keys[:cap(p.keys)] {
		if k != "" {
			t.Errorf("slot %d keeps %q", i, k)
		}
	}
}

// benchmarkJSONPatchWideMap is the JSONPatch of an object whose labels
// hold n keys, after a patch added one and changed one: the walk sorts
// the keys of every map that changed, so its cost is that of the map's
// size (n log n for the sort, n for the rest).
func benchmarkJSONPatchWideMap(b *testing.B, n int) {
	labels := make(map[string]any, n)
	for i := range n {
		labels["example.com/label-"+strconv.Itoa(i)] = "v" + strconv.Itoa(i)
	}
	changed := maps.Clone(labels)
	changed["example.com/added"] = "yes"
	changed["example.com/label-0"] = "changed"
	in := map[string]any{"metadata": map[string]any{"name": "web", "labels": labels}}
	out := map[string]any{"metadata": map[string]any{"name": "web", "labels": changed}}
	b.ReportAllocs()
	for b.Loop() {
		patch, err := JSONPatch(in, out)
		if err != nil || !bytes.Contains(patch, []byte("example.com~1added")) {
			b.Fatalf("%s, %v", patch, err)
		}
	}
}

func BenchmarkJSONPatchWideMap1000(b *testing.B)  { benchmarkJSONPatchWideMap(b, 1000) }
func BenchmarkJSONPatchWideMap10000(b *testing.B) { benchmarkJSONPatchWideMap(b, 10000) }
