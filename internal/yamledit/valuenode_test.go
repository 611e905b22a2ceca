package yamledit

import (
	"bytes"
	"reflect"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// TestValueNodeReadsBack: the strings that yaml.v3 prints as block
// scalars it cannot read back (a line break, and a blank or a line break
// first) come out double-quoted, as keys and values, at any depth; the
// others as yaml.v3 prints them.
func TestValueNodeReadsBack(t *testing.T) {
	for _, s := range []string{"\n0", " 0\n1", "\t0\n1", "\u2028x\ny", "\x00 0", "plain\ntext\n"} {
		v := []any{map[string]any{"k": []any{s}, s: s}, "\x000"} // "\x000" is what the first placeholder would be
		n, err := ValueNode(v)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		enc.CompactSeqIndent()
		if err := enc.Encode(n); err != nil {
			t.Fatal(err)
		}
		var got any
		if err := yaml.Unmarshal(b.Bytes(), &got); err != nil || !reflect.DeepEqual(got, v) {
			t.Errorf("%q: err %v, printed:\n%s", s, err, b.String())
		}
	}
}
