package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// conflictingFiles is n files that all set the replicas of one
// Deployment, each to its own value, and its labels, all to one value.
func conflictingFiles(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("p/f%04d.kpatch", i)] = fmt.Sprintf("[deployment.web]\nreplicas: %d\nlabels.team: x\n", i)
	}
	return files
}

// TestLintConflictsOnePerField: 2,000 files that set one field to their
// own value are one line, naming the first files, the count of the others
// and the winner; n(n-1)/2 lines before.
func TestLintConflictsOnePerField(t *testing.T) {
	code, stdout, stderr := runCLI(t, conflictingFiles(2000), "", "lint", "p")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	want := "deployment.web spec.replicas: set by 2000 files (p/f0000.kpatch:2:1 to 0, p/f0001.kpatch:2:1 to 1, p/f0002.kpatch:2:1 to 2, ... 1997 more); p/f1999.kpatch:2:1 wins (applies last, 1999)"
	if code != 1 || len(lines) != 1 || lines[0] != want {
		t.Errorf("exit %d, %d lines, stderr %q; want 1 and one line:\n%s\ngot first:\n%s", code, len(lines), stderr, want, lines[0])
	}
}

// TestLintJSONListsEveryFileAndPair: -o json names every file of a
// contested field, the winner and every pair in conflict.
func TestLintJSONListsEveryFileAndPair(t *testing.T) {
	code, stdout, _ := runCLI(t, conflictingFiles(40), "", "lint", "-o", "json", "p")
	var report struct {
		Findings []struct {
			Severity string
			Message  string
			Conflict struct {
				Path   string
				Writes []struct{ File string }
				Winner struct {
					File  string
					Value any
				}
				Pairs [][2]int
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("exit %d, %v:\n%s", code, err, stdout)
	}
	if code != 1 || len(report.Findings) != 1 {
		t.Fatalf("exit %d, %d findings; want 1 and 1", code, len(report.Findings))
	}
	f := report.Findings[0]
	c := f.Conflict
	if f.Severity != "error" || c.Path != "spec.replicas" || len(c.Writes) != 40 || c.Winner.File != "p/f0039.kpatch" || c.Winner.Value != 39.0 || len(c.Pairs) != 40*39/2 {
		t.Errorf("finding %s: %s, %d writes, winner %+v, %d pairs", f.Severity, f.Message, len(c.Writes), c.Winner, len(c.Pairs))
	}
	for i, w := range c.Writes {
		if want := fmt.Sprintf("p/f%04d.kpatch", i); w.File != want {
			t.Fatalf("write %d is %s, want %s", i, w.File, want)
		}
	}
	if code, _, stderr := runCLI(t, conflictingFiles(2), "", "lint", "-o", "yaml", "p"); code != 2 || !strings.Contains(stderr, "text or json") {
		t.Errorf("-o yaml: exit %d, %q", code, stderr)
	}
}

// TestLintUselessOverridesOnePerField: entries of many files that set a
// field to the value it has are one warning (and the first file, whose
// change they all repeat, one more: overwritten).
func TestLintUselessOverridesOnePerField(t *testing.T) {
	files := map[string]string{"app.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n"}
	for i := range 50 {
		files[fmt.Sprintf("p/f%02d.kpatch", i)] = "[deployment.web]\nreplicas: 3\n"
	}
	code, stdout, _ := runCLI(t, files, "", "lint", "-f", "app.yaml", "p")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	want := "p/f01.kpatch:2:1: warning: useless overrides: deployment.web spec.replicas is already 3 on every object these 49 entries match (p/f01.kpatch:2:1, p/f02.kpatch:2:1, p/f03.kpatch:2:1, ... 46 more; first set by p/f00.kpatch:2:1); they change nothing"
	if code != 0 || len(lines) != 2 || lines[0] != want || !strings.HasPrefix(lines[1], "p/f00.kpatch:1:1: warning: overwritten file") {
		t.Errorf("exit %d, %d lines; want 0 and:\n%s\ngot:\n%s", code, len(lines), want, stdout)
	}
}
