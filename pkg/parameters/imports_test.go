package parameters

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoEngine: the parameters are a leaf of the engine. They
// produce what the engine reads (package variables) and report in its
// error types (package fileerr) without linking package kpatch.
func TestImportsNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "kpatch.dev/kpatch/pkg/kpatch" || strings.HasPrefix(p, "kpatch.dev/kpatch/pkg/admission") {
			t.Errorf("package parameters imports %s", p)
		}
	}
}
