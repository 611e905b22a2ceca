package objectjson

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestWithoutManagedFields cuts the member wherever it is in metadata,
// with the comma that goes with it, and leaves alone the documents it
// cannot cut exactly.
func TestWithoutManagedFields(t *testing.T) {
	for raw, want := range map[string]string{
		`{"metadata":{"name":"a","managedFields":[{"f":{"k:{\"n\":1}":{}}}]},"spec":{}}`: `{"metadata":{"name":"a"},"spec":{}}`,
		`{"metadata":{"managedFields":[],"name":"a"}}`:                                   `{"metadata":{"name":"a"}}`,
		`{"metadata":{ "managedFields" : [] , "name":"a"}}`:                              `{"metadata":{  "name":"a"}}`,
		`{"metadata":{"a":1,"managedFields":"}]","b":2}}`:                                `{"metadata":{"a":1,"b":2}}`,
		`{"metadata":{"managedFields":null}}`:                                            `{"metadata":{}}`,
		`{"kind":"X","metadata":{"labels":{"managedFields":"x"},"managedFields":[1]}}`:   `{"kind":"X","metadata":{"labels":{"managedFields":"x"}}}`,
	} {
		got, ok := WithoutManagedFields([]byte(raw))
		if !ok || string(got) != want {
			t.Errorf("%s:\ngot  %s (%v)\nwant %s", raw, got, ok, want)
		}
	}
	for _, raw := range []string{
		`{"metadata":{"name":"a"}}`,
		`{"spec":{"metadata":{"managedFields":[]}}}`,                                  // not the object's
		`{"metadata":{"managedFields":[]},"metadata":{"managedFields":[]}}`,           // metadata twice
		`{"metadata":{"managedFields":[],"managedFields":[]}}`,                        // the member twice
		`{"metad\u0061ta":{"managedFields":[]}}`,                                      // an escaped key
		`{"metadata":{"managed\u0046ields":[]}}`,                                      // an escaped key
		`{"metadata":null}`, `[]`, `{"metadata":{"managedFields":[}`, ``, `{`, `{"a"`, // not what it expects
	} {
		if got, ok := WithoutManagedFields([]byte(raw)); ok || string(got) != raw {
			t.Errorf("%s: cut to %s", raw, got)
		}
	}
}

// TestWithoutManagedFieldsOfTheAPIServersObject: the Deployment as the
// API server sends it decodes without its managedFields, all else equal,
// from less than half of its bytes.
func TestWithoutManagedFieldsOfTheAPIServersObject(t *testing.T) {
	raw, err := os.ReadFile("testdata/deployment-apiserver.json")
	if err != nil {
		t.Fatal(err)
	}
	cut, ok := WithoutManagedFields(raw)
	if !ok || 2*len(cut) > len(raw)+len(raw)/10 {
		t.Fatalf("cut %v: %d of %d bytes", ok, len(cut), len(raw))
	}
	assertCutEquals(t, raw, cut)
}

// assertCutEquals holds the decoding of cut to that of raw less
// metadata.managedFields.
func assertCutEquals(t *testing.T, raw, cut []byte) {
	t.Helper()
	want, err := Decode(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := want["metadata"].(map[string]any)
	if _, has := meta["managedFields"]; !has {
		t.Fatalf("%q: cut, and no managedFields decoded", raw)
	}
	delete(meta, "managedFields")
	got, err := Decode(cut, nil)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q cut to %q: %v\ngot  %#v\nwant %#v", raw, cut, err, got, want)
	}
}

// FuzzWithoutManagedFields: whatever the document, the walk ends; where
// it cuts a document the API server's decoder takes, the rest decodes as
// the document less metadata.managedFields; where it does not, the
// document comes back as it was.
func FuzzWithoutManagedFields(f *testing.F) {
	if raw, err := os.ReadFile("testdata/deployment-apiserver.json"); err == nil {
		f.Add(raw)
	}
	for _, seed := range []string{
		`{"metadata":{"name":"a","managedFields":[{"f":{"k:{\"n\":1}":{}}}]},"spec":{}}`,
		`{"metadata":{ "managedFields" : [] , "name":"a"}}`,
		`{"metadata":{"managedFields":null}}`,
		`{"metadata":{"managedFields":[]},"metadata":{}}`,
		`{"metad\u0061ta":{"managedFields":[]}}`,
		`{"metadata":{"a":"\\","managedFields":1e3}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		cut, ok := WithoutManagedFields(raw)
		if !ok {
			if string(cut) != string(raw) {
				t.Fatalf("%q: not cut, and changed to %q", raw, cut)
			}
			return
		}
		var check map[string]any
		if err := utiljson.Unmarshal(raw, &check); err != nil || check == nil {
			return // not a document the API server sends
		}
		assertCutEquals(t, raw, cut)
	})
}

// TestWithoutManagedFieldsAllocatesOnlyTheCut: a document without
// managedFields, the usual request of the load tool and of the CLI, costs
// its walk and no allocation.
func TestWithoutManagedFieldsAllocatesOnlyTheCut(t *testing.T) {
	raw, err := os.ReadFile("../../pkg/kpatch/testdata/bench/deployment.json")
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() { _, _ = WithoutManagedFields(raw) }); n != 0 {
		t.Errorf("%v allocations without managedFields, want 0", n)
	}
	withFields, err := os.ReadFile("testdata/deployment-apiserver.json")
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() { _, _ = WithoutManagedFields(withFields) }); n != 1 {
		t.Errorf("%v allocations with managedFields, want 1 (the cut copy)", n)
	}
}

// managedFieldsObject is the API server's Deployment with n entries in
// its managedFields, each a copy of its own.
func managedFieldsObject(tb testing.TB, n int) []byte {
	tb.Helper()
	raw, err := os.ReadFile("testdata/deployment-apiserver.json")
	if err != nil {
		tb.Fatal(err)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		tb.Fatal(err)
	}
	meta := obj["metadata"].(map[string]any)
	entry := meta["managedFields"].([]any)[0]
	entries := make([]any, n)
	for i := range entries {
		entries[i] = entry
	}
	meta["managedFields"] = entries
	out, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkWithoutManagedFields cuts managedFields of 10 and 100 entries
// (each with the Deployment's 18 escaped keys) and decodes the rest, and
// decodes the whole object for comparison: the walk and the unescaping
// are linear in the document.
func BenchmarkWithoutManagedFields(b *testing.B) {
	for _, n := range []int{10, 100} {
		raw := managedFieldsObject(b, n)
		b.Run(fmt.Sprintf("entries=%d/cut", n), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := WithoutManagedFields(raw); !ok {
					b.Fatal("not cut")
				}
			}
		})
		b.Run(fmt.Sprintf("entries=%d/decode-whole", n), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			maps := TakeMaps()
			for b.Loop() {
				if _, err := Decode(raw, maps); err != nil {
					b.Fatal(err)
				}
				maps.empty()
			}
		})
	}
}
