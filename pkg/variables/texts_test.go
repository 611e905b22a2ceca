package variables

import (
	"encoding/json"
	"reflect"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
)

func TestDenotes(t *testing.T) {
	tests := []struct {
		text string
		val  any
		want bool
	}{
		{"1.0", float64(1), true},
		{"1.0", int64(1), true},
		{"1.10", 1.1, true},
		{"1.10", 1.2, false},
		{"010", int64(8), true},  // YAML 1.1 octal
		{"010", int64(10), true}, // read in base 10
		{"0o10", int64(8), true},
		{"0o+0", int64(0), true}, // yaml.v3 reads a sign after the prefix
		{"0x-1F", int64(-31), true},
		{"0x1F", int64(31), true},
		{"1_000", int64(1000), true},
		{"1e3", float64(1000), true},
		{".5", 0.5, true},
		{"123456789012345678901234567890", json.Number("123456789012345678901234567890"), true},
		{"123456789012345678901234567890", json.Number("123456789012345678901234567891"), false},
		{"yes", true, true},
		{"yes", false, false},
		{"Off", false, true},
		{"~", nil, true},
		{"", nil, true},
		{"null", nil, true},
		{"none", nil, false},
		{"abc", "abc", false}, // a string has no other text
		{"1.0", "1.0", false},
		{"x", float64(1), false},
		{"01000000000000000000000", 9.223372036854776e18, true}, // beyond 64 bits, read lossily
		{"-99999999999999999999", -1e20, true},
		{"99999999999999999999", -1e20, false},
		{"99999999999999999999", float64(5), false},
		{"000000100000000000000090", int64(100000000000000100), true}, // read through a float
		{"100000000000000090", int64(100000000000000091), true},
		{"90", int64(91), false},
	}
	for _, tt := range tests {
		if got := Denotes(tt.text, tt.val); got != tt.want {
			t.Errorf("Denotes(%q, %#v) = %v, want %v", tt.text, tt.val, got, tt.want)
		}
	}
}

func TestTextsOf(t *testing.T) {
	var doc yamlv3.Node
	src := "values:\n  a: 1.0\n  b: 3\n  c: text\n  d: \"1.0\"\n  e: yes\n  f: true\n  g: ~\n  h: [1.10, 2, x]\n  i: {j: 010, k: 7}\nfeatures:\n  on: on\n"
	if err := yamlv3.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"values": map[string]any{
			"a": "1.0", "e": "yes", "g": "~",
			"h": []any{"1.10", nil, nil},
			"i": map[string]any{"j": "010"},
		},
		"features": map[string]any{"on": "on"},
	}
	if got := TextsOf(&doc); !reflect.DeepEqual(got, want) {
		t.Errorf("TextsOf:\n got %#v\nwant %#v", got, want)
	}
}

func TestTextOfKeepsTheWrittenTextWhileItDenotesTheValue(t *testing.T) {
	v, err := Load([]byte("values:\n  ver: 1.0\n  db: {port: 5432.0}\n  db.host: 1.10\n  n: 3\nfeatures:\n  canary: on\n"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(v *Variables, scope string, path []string, val any, want string, ok bool) {
		t.Helper()
		got, gotOK := v.TextOf(scope, path, val)
		if got != want || gotOK != ok {
			t.Errorf("TextOf(%s.%v) = %q, %v; want %q, %v", scope, path, got, gotOK, want, ok)
		}
	}
	check(v, ScopeValues, []string{"ver"}, v.Values["ver"], "1.0", true)
	check(v, ScopeValues, []string{"db", "port"}, int64(5432), "5432.0", true)
	check(v, ScopeValues, []string{"db", "host"}, 1.1, "1.10", true) // a key holding dots, found whole
	check(v, ScopeValues, []string{"n"}, int64(3), "", false)        // 3 prints as written: no text kept
	check(v, ScopeFeatures, []string{"canary"}, true, "on", true)

	// A later layer that sets another value makes the text stale: it is
	// ignored, whether the layer has a text of its own or not.
	over := v.Merge(&Variables{Values: map[string]any{"ver": 2.5}})
	check(over, ScopeValues, []string{"ver"}, 2.5, "", false)
	if err := over.Set("values.ver=2.50"); err != nil {
		t.Fatal(err)
	}
	check(over, ScopeValues, []string{"ver"}, over.Values["ver"], "2.50", true)
	if err := over.SetString("values.ver=1.0"); err != nil {
		t.Fatal(err)
	}
	check(over, ScopeValues, []string{"ver"}, over.Values["ver"], "", false) // a string is its own text

	// The built-ins copy keeps the texts.
	check(v.WithBuiltins(nil), ScopeValues, []string{"ver"}, v.Values["ver"], "1.0", true)
	var none *Variables
	check(none, ScopeValues, []string{"ver"}, 1.0, "", false)
}

// TestALaterValueDropsTheEarlierText: a layer that sets a value, written
// as it prints, leaves no text of the value it replaced (1.0 then 1 is
// "1", not "1.0").
func TestALaterValueDropsTheEarlierText(t *testing.T) {
	first, err := Load([]byte("values:\n  ver: 1.0\n  on: yes\n  db: {port: 5432.0, tls: on}\n"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := Load([]byte("values:\n  ver: 1\n  on: true\n  db: {port: 5432}\n"))
	if err != nil {
		t.Fatal(err)
	}
	merged := first.Merge(second)
	for _, path := range [][]string{{"ver"}, {"on"}, {"db", "port"}} {
		val, _ := Lookup(merged.Values, path)
		if text, ok := merged.TextOf(ScopeValues, path, val); ok {
			t.Errorf("%v: the earlier text %q is kept", path, text)
		}
	}
	if text, _ := merged.TextOf(ScopeValues, []string{"db", "tls"}, true); text != "on" {
		t.Errorf("db.tls: text %q, want on (the later layer does not set it)", text)
	}
	if err := first.Set("values.ver=1"); err != nil {
		t.Fatal(err)
	}
	if text, ok := first.TextOf(ScopeValues, []string{"ver"}, first.Values["ver"]); ok {
		t.Errorf("--set values.ver=1 after 1.0: the earlier text %q is kept", text)
	}
}

func TestTextsOfMergeKeys(t *testing.T) {
	v, err := Load([]byte("values:\n  base: &b {ver: 1.0, tag: 010}\n  app:\n    <<: *b\n    tag: 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := v.TextOf(ScopeValues, []string{"app", "ver"}, v.Values["app"].(map[string]any)["ver"]); text != "1.0" {
		t.Errorf("app.ver merged in: text %q, want 1.0", text)
	}
	if text, ok := v.TextOf(ScopeValues, []string{"app", "tag"}, v.Values["app"].(map[string]any)["tag"]); ok {
		t.Errorf("app.tag set by the map itself: text %q, want none", text)
	}
}
