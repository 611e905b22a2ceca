package kpatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseYAMLErrors(t *testing.T) {
	tests := []struct {
		name, src, pos string
		sentinel       error
		msg            string
	}{
		{"not a list", "target: x\n", "f.yaml:1:1", ErrSyntax, "list of entries"},
		{"invalid YAML", "- target: [\n", "f.yaml:1:1", ErrSyntax, "invalid YAML"},
		{"entry not a map", "- 3\n", "f.yaml:1:3", ErrSyntax, "target, type and patch"},
		{"unknown key", "- target: deployment.web\n  patchh: {}\n", "f.yaml:2:3", ErrSyntax, `unknown key "patchh"`},
		{"no target", "- patch: {a: 1}\n", "f.yaml:1:3", ErrSyntax, "no target"},
		{"bad target", "- target: deployment\n  patch: {a: 1}\n", "f.yaml:1:21", ErrSyntax, "name after the kind"},
		{"path in target", "- target: deployment.web.replicas\n  patch: {a: 1}\n", "f.yaml:1:25", ErrSyntax, "path belongs in the patch"},
		{"unknown type", "- target: deployment.web\n  type: surgical\n  patch: {}\n", "f.yaml:2:9", ErrSyntax, `unknown type "surgical"`},
		{"no patch", "- target: deployment.web\n", "f.yaml:1:3", ErrSyntax, "no patch"},
		{"strategic not a map", "- target: deployment.web\n  type: strategic\n  patch: [1]\n", "f.yaml:3:10", ErrValue, "is a map"},
		{"bad path", "- target: deployment.web\n  patch:\n    a..b: 1\n", "f.yaml:3:7", ErrSyntax, "empty segment"},
		{"delete with value", "- target: deployment.web\n  patch:\n    labels.a[delete]: yes\n", "f.yaml:3:23", ErrSyntax, "takes no value"},
		{"target map without kind", "- target: {name: web}\n  patch: {a: 1}\n", "f.yaml:1:11", ErrSyntax, "a target is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseYAML("f.yaml", []byte(tt.src))
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v", err)
			}
			found := false
			for _, e := range list {
				pe := e.(*ParseError)
				found = found || pe.Pos.String() == tt.pos && errors.Is(pe, tt.sentinel) && strings.Contains(pe.Msg, tt.msg)
			}
			if !found {
				t.Errorf("got %v, want %s %v %q", err, tt.pos, tt.sentinel, tt.msg)
			}
		})
	}
}

func TestParseYAMLEntries(t *testing.T) {
	f, err := ParseYAML("f.yaml", []byte(`
- target: {group: apps, version: v1, kind: Deployment, name: "web-*", namespace: prod}
  patch:
    replicas: 2
    containers[name=main].resources: {limits: {cpu: 1}}
- target: widget.w
  type: merge
  patch: {spec: {a: 1}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 1 || len(f.Merges) != 1 || f.Merges[0].Strategic {
		t.Fatalf("sections %d, merges %d", len(f.Sections), len(f.Merges))
	}
	tg := f.Sections[0].Target
	if tg.String() != "prod/Deployment(apps/v1).web-*" {
		t.Errorf("target %s", tg.String())
	}
	if f.Sections[0].Entries[1].Value.Tree == nil || f.Sections[0].Entries[0].Value.Scalar != int64(2) {
		t.Errorf("values %+v", f.Sections[0].Entries)
	}
}

// FuzzParseYAML checks that any YAML patch file parses or fails with
// positioned errors, and that what parses compiles and applies without
// modifying its input.
func FuzzParseYAML(f *testing.F) {
	dirs, _ := filepath.Glob("../../test/conformance/testdata/y*")
	for _, dir := range dirs {
		for _, name := range patchFilesIn(dir) {
			src, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	_, deployment := benchPatchSet(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := ParseYAML("fuzz.yaml", src)
		if err != nil {
			assertPositioned(t, err)
			return
		}
		p, err := Compile(file)
		if err != nil {
			assertPositioned(t, err)
			return
		}
		obj := decodeObject(t, deployment)
		before := deepCopy(t, obj)
		out, err := p.WithVariables(&Variables{}).Apply(obj, ApplyOptions{})
		if !equalValue(obj, before) {
			t.Fatal("the input was modified")
		}
		if err != nil && !equalValue(out, before) {
			t.Fatal("a failing file changed the object")
		}
	})
}

// aliasBomb is a YAML patch file whose entries each refer to one
// anchored list of width items: each alias alone is what yaml.v3's own
// guard lets through, entries*width nodes in all.
func aliasBomb(entries, width int) string {
	var b strings.Builder
	b.WriteString("- target: configmap.x\n  type: merge\n  patch:\n    data: {}\n    list: &list [")
	for w := range width {
		if w > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "item%d", w)
	}
	b.WriteString("]\n")
	for i := range entries {
		fmt.Fprintf(&b, "- target: configmap.x\n  type: merge\n  patch: {copy%d: *list}\n", i)
	}
	return b.String()
}

// TestAliasLimit counts what aliases add across a whole file: 2,000
// entries repeating a list of 100 items are 200,000 nodes from 100 KB,
// which yaml.v3's guard, counting each entry apart, let through.
func TestAliasLimit(t *testing.T) {
	_, err := ParseYAML("bomb.yaml", []byte(aliasBomb(2000, 100)))
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrLimit) || pe.Pos.String() != "bomb.yaml:2978:20" {
		t.Fatalf("want a ParseError wrapping ErrLimit at the alias of the 991st entry (101 nodes each), got %v", err)
	}
	if _, err := ParseYAML("small.yaml", []byte(aliasBomb(500, 100))); err != nil {
		t.Errorf("a few aliases: %v", err)
	}
}

// TestYAMLTimestampsAreText: an unquoted date or time in a YAML patch
// file is its text, as the API server's YAML reader keeps it: in a
// string field, in a merge patch, and on a custom resource.
func TestYAMLTimestampsAreText(t *testing.T) {
	for _, tt := range []struct{ obj, src string }{
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "- target: configmap.c\n  patch:\n    data.d: 2024-01-01\n- target: configmap.c\n  type: merge\n  patch:\n    data: {t: 2001-12-14t21:59:43.10-05:00}\n"},
		{"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: c}\n", "- target: widget.c\n  patch:\n    data.d: 2024-01-01\n- target: widget.c\n  type: merge\n  patch:\n    data: {t: 2001-12-14t21:59:43.10-05:00}\n"},
	} {
		out, err := mustPatch(t, "t.yaml", tt.src).Apply(mustObject(t, tt.obj), ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"d": "2024-01-01", "t": "2001-12-14t21:59:43.10-05:00"}
		if got := out["data"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: data %#v, want %#v", tt.obj, got, want)
		}
	}
}
