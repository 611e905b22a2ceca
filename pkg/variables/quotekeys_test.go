package variables

import (
	"reflect"
	"testing"
)

// TestLoadKeepsKeysAsText: keys that YAML 1.1 reads as booleans
// (n, y, on, off, yes, no) stay names; values keep their reading.
func TestLoadKeepsKeysAsText(t *testing.T) {
	v, err := Load([]byte("values:\n  n: 4\n  on: x\n  nested: {y: 1, off: [a]}\n  flag: yes\n  text: \"no\"\n  base: &b {k: v}\n  copy: *b\n  merged:\n    <<: *b\n    z: 2\nfeatures:\n  no: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"n": int64(4), "on": "x", "nested": map[string]any{"y": int64(1), "off": []any{"a"}},
		"flag": true, "text": "no", "base": map[string]any{"k": "v"}, "copy": map[string]any{"k": "v"},
		"merged": map[string]any{"k": "v", "z": int64(2)},
	}
	if !reflect.DeepEqual(v.Values, want) {
		t.Errorf("values %#v", v.Values)
	}
	if !reflect.DeepEqual(v.Features, map[string]any{"no": true}) {
		t.Errorf("features %#v", v.Features)
	}
	if _, err := Load([]byte("values: [")); err == nil {
		t.Error("invalid YAML accepted")
	}
}
