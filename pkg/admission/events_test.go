package admission

import (
	"strings"
	"testing"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/registry"
)

// TestEventNoteFitsTheAPI: the API server refuses an Event whose note is
// longer than 1024 bytes, and the Event is lost; a long compile error must
// not cost its Event.
func TestEventNoteFitsTheAPI(t *testing.T) {
	long := strings.Repeat("é", 2000)
	n := EventNote("header", []string{long})
	if len(n) > maxNoteBytes || !utf8.ValidString(n) || !strings.HasSuffix(n, " [...]") || !strings.HasPrefix(n, "header\n") {
		t.Errorf("note of %d bytes: %.40q...", len(n), n)
	}
	if n := EventNote("", []string{"a", "b", "c", "d", "e"}); n != "a\nb\nc\nand 2 more" {
		t.Errorf("note %q", n)
	}
	if n := EventNote("", []string{"short"}); n != "short" {
		t.Errorf("note %q", n)
	}
}

func TestErrorSummary(t *testing.T) {
	var c registry.Compiler
	b := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": "a\nb\nc\nd\ne\n"})}, nil)
	s := errorSummary(b.Problems[0].Err)
	if !strings.Contains(s, "a/f.kpatch:1:1") || !strings.Contains(s, "and 2 more") {
		t.Errorf("summary %q", s)
	}
}
