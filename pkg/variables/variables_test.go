package variables

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	for _, c := range []struct {
		body, scope string
		path        []string
		err         string
	}{
		{"values.a", "values", []string{"a"}, ""},
		{"values.db.host", "values", []string{"db", "host"}, ""},
		{"features.canary_2-x", "features", []string{"canary_2-x"}, ""},
		{"env.HOME", "", nil, "unknown variable ${env.HOME}; expected ${values.NAME} or ${features.NAME}"},
		{"values", "", nil, "unknown variable ${values}"},
		{"values.", "", nil, `invalid variable name "" in ${values.}`},
		{"values.a b", "", nil, `invalid variable name "a b" in ${values.a b}`},
		{"values.1a", "", nil, `invalid variable name "1a"`},
	} {
		scope, path, err := ParseName(c.body)
		switch {
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("ParseName(%q) error %v, want %q", c.body, err, c.err)
		case c.err == "" && (err != nil || scope != c.scope || !reflect.DeepEqual(path, c.path)):
			t.Errorf("ParseName(%q) = %q %q %v", c.body, scope, path, err)
		}
	}
}

func TestSet(t *testing.T) {
	var v Variables
	for _, s := range []string{"values.a=1", "values.db.host=pg", "values.db.port=5432", `values.s="2"`, "values.t=1.10 # a comment", "values.e=$${x}", "features.x=true", "values.n="} {
		if err := v.Set(s); err != nil {
			t.Fatalf("Set(%q): %v", s, err)
		}
	}
	if err := v.SetString("values.version=1.10"); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": int64(1), "db": map[string]any{"host": "pg", "port": int64(5432)}, "s": "2", "t": 1.1, "e": "${x}", "n": nil, "version": "1.10"}
	if !reflect.DeepEqual(v.Values, want) || !reflect.DeepEqual(v.Features, map[string]any{"x": true}) {
		t.Errorf("values %#v, features %#v", v.Values, v.Features)
	}
	for bad, msg := range map[string]string{
		"values.a":             "expected values.NAME=VALUE",
		"env.a=1":              "unknown variable ${env.a}",
		"object.name=x":        "${object.name} is a built-in, which is read-only",
		"namespace.labels.a=x": "is a built-in",
		"features.x=maybe":     "features are booleans",
		"values.a=[1]":         "values are scalars",
		"values.a=${values.b}": "cannot refer to other variables",
		`values.a="open`:       "quoted value is not closed",
	} {
		err := (&Variables{}).Set(bad)
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), strconv.Quote(bad)+": ") {
			t.Errorf("Set(%q) = %v, want %q", bad, err, msg)
		}
	}
}

func TestLoadAndMerge(t *testing.T) {
	loaded, err := Load([]byte("values:\n  a: 2\n  db: {host: x, port: 1}\nfeatures:\n  x: false\n  group: {y: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var flags Variables
	for _, s := range []string{"values.a=1", "values.db.host=pg", "features.x=true"} {
		if err := flags.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	merged := loaded.Merge(&flags)
	if !reflect.DeepEqual(merged.Values, map[string]any{"a": int64(1), "db": map[string]any{"host": "pg", "port": int64(1)}}) ||
		!reflect.DeepEqual(merged.Features, map[string]any{"x": true, "group": map[string]any{"y": true}}) {
		t.Errorf("merge: %#v", merged)
	}
	if loaded.Values["a"] != int64(2) || loaded.Values["db"].(map[string]any)["host"] != "x" {
		t.Errorf("Merge changed its receiver: %#v", loaded.Values)
	}
	if got := (*Variables)(nil).Merge(nil); got.Values != nil || got.Features != nil {
		t.Errorf("nil merge: %#v", got)
	}
	for bad, msg := range map[string]string{
		"other: {}":                   `unknown key "other"`,
		"values: 3":                   "values: expected a map",
		"features: {x: 1}":            "features.x is 1; features are booleans",
		"features: {g: {y: no-bool}}": "features.g.y",
		"values: [":                   "invalid YAML",
		"- a":                         "expected a map holding values and features",
	} {
		if _, err := Load([]byte(bad)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Load(%q) = %v, want %q", bad, err, msg)
		}
	}
}

// TestItemScope: ${item} and ${item.PATH} parse, with the item alone an
// empty path; item is read-only (no --set), and WithItem binds it to a
// copy.
func TestItemScope(t *testing.T) {
	if scope, path, err := ParseName("item"); err != nil || scope != ScopeItem || path != nil {
		t.Errorf("item: %q %q %v", scope, path, err)
	}
	if scope, path, err := ParseName("item.resources.requests"); err != nil || scope != ScopeItem || len(path) != 2 {
		t.Errorf("item.resources.requests: %q %q %v", scope, path, err)
	}
	if _, _, err := ParseName("item.a/b"); err == nil {
		t.Error("item.a/b parsed")
	}
	var v Variables
	if err := v.Set("item.name=x"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("--set item.name: %v", err)
	}
	w := v.WithItem("x")
	if !w.HasItem || w.Item != "x" || v.HasItem {
		t.Errorf("WithItem: %+v, original %+v", w, v)
	}
}
