package kpatch

import (
	"errors"
	"strings"
	"testing"
)

// TestReconcileMetadata: reconcile: true opts a file in, in a .kpatch
// comment line and in a YAML metadata entry; false and no line leave it
// out; the position is where the value is written.
func TestReconcileMetadata(t *testing.T) {
	tests := []struct {
		name, file, src string
		reconcile       bool
		pos             Position
	}{
		{"none", "f.kpatch", "[deployment.web]\nreplicas: 2\n", false, Position{}},
		{"true", "f.kpatch", "# kpatch:reconcile: true  # roll it out\n[deployment.web]\nreplicas: 2\n", true, Position{File: "f.kpatch", Line: 1, Column: 21}},
		{"false", "f.kpatch", "# kpatch:reconcile: false\n[deployment.web]\nreplicas: 2\n", false, Position{File: "f.kpatch", Line: 1, Column: 21}},
		{"yaml true", "f.yaml", "- metadata: {reconcile: true}\n- target: deployment.web\n  patch: {replicas: 2}\n", true, Position{File: "f.yaml", Line: 1, Column: 25}},
		{"yaml false", "f.yaml", "- metadata:\n    reconcile: false\n- target: deployment.web\n  patch: {replicas: 2}\n", false, Position{File: "f.yaml", Line: 2, Column: 16}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseAndCompile(tt.file, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if p.Reconcile() != tt.reconcile || p.Metadata().Reconcile != tt.reconcile {
				t.Errorf("Reconcile() = %v, want %v", p.Reconcile(), tt.reconcile)
			}
			if got := p.Metadata().ReconcilePos; got != tt.pos {
				t.Errorf("reconcile at %v, want %v", got, tt.pos)
			}
		})
	}
}

// TestReconcileMetadataErrors: a value other than true or false, and the
// key given twice, are syntax errors at their line and column.
func TestReconcileMetadataErrors(t *testing.T) {
	tests := []struct{ name, file, src, want string }{
		{"maybe", "f.kpatch", "# kpatch:reconcile: maybe\n[deployment.web]\nreplicas: 2\n", `f.kpatch:1:21: reconcile: expected true or false, not "maybe"`},
		{"empty", "f.kpatch", "# kpatch:reconcile:\n[deployment.web]\nreplicas: 2\n", `f.kpatch:1:20: reconcile: expected true or false, not ""`},
		{"capital", "f.kpatch", "# kpatch:reconcile: True\n[deployment.web]\nreplicas: 2\n", `f.kpatch:1:21: reconcile: expected true or false, not "True"`},
		{"twice", "f.kpatch", "# kpatch:reconcile: true\n# kpatch:reconcile: false\n[deployment.web]\nreplicas: 2\n", "f.kpatch:2:21: reconcile: given twice; first at line 1"},
		{"yaml list", "f.yaml", "- metadata: {reconcile: [true]}\n", "f.yaml:1:25: reconcile: expected true or false"},
		{"yaml text", "f.yaml", "- metadata:\n    reconcile: yes\n", `f.yaml:2:16: reconcile: expected true or false, not "yes"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseAny(tt.file, []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("error %v is not ErrSyntax", err)
			}
		})
	}
}
