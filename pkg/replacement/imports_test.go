package replacement

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoEngine: replacements are a file kind of their own. They
// report in the errors of every file kind (package fileerr) and rank their
// targets as patch files do (package specificity) without linking package
// kpatch.
func TestImportsNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "kpatch.dev/kpatch/pkg/kpatch" || strings.HasPrefix(p, "kpatch.dev/kpatch/pkg/admission") {
			t.Errorf("package replacement imports %s", p)
		}
	}
}
