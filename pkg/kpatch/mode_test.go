package kpatch

import (
	"errors"
	"strings"
	"testing"
)

func TestModeMetadata(t *testing.T) {
	tests := []struct {
		name, file, src string
		audit           bool
		pos             Position
	}{
		{"none", "f.kpatch", "[deployment.web]\nreplicas: 2\n", false, Position{}},
		{"audit", "f.kpatch", "# kpatch:mode: audit  # try it first\n[deployment.web]\nreplicas: 2\n", true, Position{File: "f.kpatch", Line: 1, Column: 16}},
		{"enforce", "f.kpatch", "# kpatch:mode: enforce\n[deployment.web]\nreplicas: 2\n", false, Position{File: "f.kpatch", Line: 1, Column: 16}},
		{"yaml audit", "f.yaml", "- metadata: {mode: audit}\n- target: deployment.web\n  patch: {replicas: 2}\n", true, Position{File: "f.yaml", Line: 1, Column: 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseAndCompile(tt.file, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if p.Audit() != tt.audit {
				t.Errorf("Audit() = %v, want %v", p.Audit(), tt.audit)
			}
			if got := p.Metadata().Mode.Pos; got != tt.pos {
				t.Errorf("mode at %v, want %v", got, tt.pos)
			}
		})
	}
}

func TestModeMetadataErrors(t *testing.T) {
	tests := []struct{ name, file, src, want string }{
		{"unknown mode", "f.kpatch", "# kpatch:mode: dry-run\n[deployment.web]\nreplicas: 2\n", `f.kpatch:1:16: mode: expected enforce or audit, not "dry-run"`},
		{"empty", "f.kpatch", "# kpatch:mode:\n[deployment.web]\nreplicas: 2\n", `f.kpatch:1:15: mode: expected enforce or audit, not ""`},
		{"twice", "f.kpatch", "# kpatch:mode: audit\n# kpatch:mode: enforce\n[deployment.web]\nreplicas: 2\n", "f.kpatch:2:16: mode: given twice; first at line 1"},
		{"yaml list", "f.yaml", "- metadata: {mode: [audit]}\n", "f.yaml:1:20: mode: expected enforce or audit"},
		{"yaml unknown", "f.yaml", "- metadata:\n    mode: Audit\n", `f.yaml:2:11: mode: expected enforce or audit, not "Audit"`},
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
