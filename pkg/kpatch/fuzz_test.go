package kpatch

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"
)

// FuzzParse checks that any input parses without panicking, that every
// error has a position, and that what parses prints back to itself.
func FuzzParse(f *testing.F) {
	for _, name := range corpusFiles(f) {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add(thousandLines())
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.kpatch", src)
		if err != nil {
			assertPositioned(t, err)
			return
		}
		assertRoundTrip(t, file)
		p, err := Compile(file)
		if err != nil {
			assertPositioned(t, err)
			return
		}
		p.Check()
	})
}

// FuzzApply applies fuzzed patch files to fuzzed objects: no panic, the
// input is never modified, a failing file leaves no trace, and the result
// is still JSON.
func FuzzApply(f *testing.F) {
	_, deployment := benchPatchSet(f)
	for _, name := range corpusFiles(f) {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, deployment)
	}
	f.Add([]byte("[widget.*]\nspec.items[-]: 1\nimage.tag: v2\n"), []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"image":"app:v1","spec":{"items":[1,2]}}`))
	f.Add([]byte("[@workload.*.allContainers[name=app]]\nimage.registry: m.internal\n[*.*]\nreplicas: 2\n[deployment.*.allContainers[-]]\nname: app\nimage: x\n"), deployment)
	f.Add([]byte("[*(example.com).*]\nspec.allContainers.image.tag: v2\n"), []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"containers":[{"name":"a","image":"x:1"}],"initContainers":[{"name":"b","image":"y:1"}]}}`))
	f.Add([]byte("[configmap.*]\ndata.a: 1\n[delete]data.b:\n"), []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"b":"x"}}`))
	f.Fuzz(func(t *testing.T, src, objJSON []byte) {
		p, err := ParseAndCompile("fuzz.kpatch", src)
		if err != nil {
			return
		}
		var obj map[string]any
		if json.Unmarshal(objJSON, &obj) != nil || obj == nil {
			return
		}
		before := deepCopy(t, obj)
		p = p.WithVariables(&Variables{Values: map[string]any{"version": "1.2.3", "n": int64(3)}, Features: map[string]any{"on": true}})
		out, err := p.Apply(obj, ApplyOptions{Namespace: "default"})
		if !reflect.DeepEqual(obj, before) {
			t.Fatal("the input was modified")
		}
		if err != nil {
			var ae *ApplyError
			if !errors.As(err, &ae) || ae.Pos.Line < 1 {
				t.Fatalf("error without position: %v", err)
			}
			if !reflect.DeepEqual(out, before) {
				t.Fatal("a failing file changed the object")
			}
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("the result is not JSON: %v", err)
		}
	})
}

// assertPositioned checks that err is a non-empty ErrorList of
// *ParseError, each with a position and a sentinel cause.
func assertPositioned(t *testing.T, err error) {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error %T is not a non-empty ErrorList", err)
	}
	for _, e := range list {
		var pe *ParseError
		if !errors.As(e, &pe) || pe.Pos.Line < 1 || pe.Pos.Column < 1 || pe.Err == nil {
			t.Fatalf("error without position or cause: %#v", e)
		}
	}
}
