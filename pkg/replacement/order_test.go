package replacement

import (
	"testing"

	"kpatch.dev/kpatch/pkg/specificity"
)

func TestSpecificityIsTheLeastSpecificSelect(t *testing.T) {
	tests := []struct {
		selects string
		want    string
	}{
		{"- select: {kind: Job, name: seed}\n", "kind.name"},
		{"- select: {kind: Job, name: seed, namespace: prod}\n", "ns/kind.name"},
		{"- select: {kind: Job}\n", "kind.*"},
		{"- select: {kind: Job, name: seed-.*}\n", "kind.name*"},
		{"- select: {kind: Job, name: seed}\n  - select: {kind: Job}\n", "kind.*"},
		{"- select: {name: seed}\n", "kind.name"},
	}
	for _, tt := range tests {
		src := "replacements:\n- sourceValue: x\n  targets:\n  " + tt.selects[:len(tt.selects)-1] + "\n    fieldPaths: [metadata.labels.a]\n"
		r := mustParse(t, src)
		got := r.Specificity()
		if tt.selects == "- select: {name: seed}\n" {
			// no kind: any kind, below every patch file's target of that name
			if got.Kind != specificity.Any || got.Name != specificity.Literal {
				t.Errorf("%s: %+v", tt.selects, got)
			}
			continue
		}
		if got.String() != tt.want {
			t.Errorf("%q: %s, want %s", tt.selects, got, tt.want)
		}
	}
}
