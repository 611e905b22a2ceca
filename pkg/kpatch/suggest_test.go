package kpatch

import (
	"fmt"
	"strings"
	"testing"
)

func TestNearest(t *testing.T) {
	values := []string{"Always", "IfNotPresent", "Never"}
	for _, tt := range []struct {
		word, want string
		ok         bool
	}{
		{"Allways", "Always", true},            // one added
		{"always", "Always", true},             // case only
		{"NEVER", "Never", true},               // case only, beside a nearer by edits
		{"IfNotPresnet", "IfNotPresent", true}, // two edits in a long word
		{"Nevr", "Never", true},
		{"Nveer", "Never", true}, // two letters swapped: one edit
		{"Sometimes", "", false}, // too far from all
		{"x", "", false},         // a one-letter word is all edits away
		{"", "", false},
		{"Always", "", false}, // the word itself is no suggestion
	} {
		got, ok := nearest(tt.word, values)
		if got != tt.want || ok != tt.ok {
			t.Errorf("nearest(%q) = %q, %v; want %q, %v", tt.word, got, ok, tt.want, tt.ok)
		}
	}
	// the limit grows with the word: three edits are close in a word of
	// nine letters, not in one of eight
	if got, ok := nearest("abcdefghi", []string{"xbcdefgxx"}); !ok {
		t.Errorf("nearest(abcdefghi) = %q, %v; want xbcdefgxx, three edits away", got, ok)
	}
	if got, ok := nearest("abcdefgh", []string{"xbcdefxx"}); ok {
		t.Errorf("nearest(abcdefgh) = %q; want none, three edits away", got)
	}
	// on a tie, the earlier candidate
	if got, _ := nearest("abc", []string{"abd", "abe"}); got != "abd" {
		t.Errorf("tie: got %q, want abd", got)
	}
}

// TestUnknownFieldHints: an unknown field names the nearest field of its
// place, in .kpatch entries (shorthand or full path) and YAML patch
// files; a name close to none gets no hint.
func TestUnknownFieldHints(t *testing.T) {
	for _, tt := range []struct {
		name, file, src, msg string
	}{
		{"shorthand", "f.kpatch", "[deployment.web]\nreplcas: 3\n", `Deployment has no field "replcas" (looked in the top level, spec, spec.template.spec) (did you mean replicas?)`},
		{"shorthand metadata", "f.kpatch", "[deployment.web]\nlables.a: b\n", `(did you mean labels?)`},
		{"nested", "f.kpatch", "[deployment.web.containers.name=app]\nimagePulPolicy: Always\n", `Container has no field "imagePulPolicy" at spec.template.spec.containers[name=app] (did you mean imagePullPolicy?)`},
		{"selector key", "f.kpatch", "[deployment.web]\ncontainers[nmae=app].image: x\n", `have no field "nmae" to select by (did you mean name?)`},
		{"workload", "f.kpatch", "[@workload.web]\nserviceAcountName: x\n", `(did you mean serviceAccountName?)`},
		{"yaml tree", "f.yaml", "- target: deployment.web\n  patch:\n    spec: {replcas: 3}\n", `DeploymentSpec has no field "replcas" (did you mean replicas?)`},
		{"yaml strategic", "f.yaml", "- target: deployment.web\n  type: strategic\n  patch:\n    spec:\n      templat: {}\n", `(did you mean template?)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := compileFile(t, tt.file, tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want %s", err, tt.msg)
			}
		})
	}
	err := compileFile(t, "f.kpatch", "[deployment.web]\nwidgets: 3\n")
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("got %v, want an unknown field without a hint", err)
	}
}

// BenchmarkCompileKindGlobMisses compiles [*.*] with N and 10N entries
// that most kinds lack: their problems are dropped unless every kind
// fails, so the suggestions must cost nothing until one is reported.
func BenchmarkCompileKindGlobMisses(b *testing.B) {
	for _, n := range []int{10, 100} {
		var sb strings.Builder
		sb.WriteString("[*.*]\n")
		for i := range n {
			fmt.Fprintf(&sb, "containers[name=app%d].imagePullPolicy: Always\n", i)
		}
		src := []byte(sb.String())
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := ParseAndCompile("f", src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
