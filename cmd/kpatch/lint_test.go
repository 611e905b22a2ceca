package main

import (
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	files := map[string]string{
		"good.kpatch": "[deployment.web]\nreplicas: ${values.n}\n",
		"bad.kpatch":  "[deployment.web]\nreplicsa: 3\n\n[service.s.ports.name=http]\nport: many\n",
	}
	code, stdout, _ := runCLI(t, files, "", "lint", "good.kpatch", "bad.kpatch")
	if code != 1 || !strings.Contains(stdout, "bad.kpatch:2:1: ") || !strings.Contains(stdout, "bad.kpatch:5:7: ") || strings.Contains(stdout, "good.kpatch") {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, files, "", "lint", "good.kpatch", "--set", "values.m=1")
	if code != 1 || !strings.Contains(stdout, "good.kpatch:2:11: ") || !strings.Contains(stdout, "${values.n}") {
		t.Errorf("with variables: exit %d, stdout:\n%s", code, stdout)
	}
	if code, stdout, _ = runCLI(t, files, "", "lint", "good.kpatch"); code != 0 || stdout != "" {
		t.Errorf("a good file: exit %d, stdout %q", code, stdout)
	}
}

func TestLintUnmatchedTargets(t *testing.T) {
	code, stdout, stderr := runCLI(t, unmatchedFiles, cm, "lint", "-f", "-", "app.kpatch", "merge.yaml")
	want := "app.kpatch:5:1: warning: target configmap.other matches no object of the input\n" +
		"app.kpatch:8:1: warning: target prod/configmap.c matches no object of the input\n" +
		"merge.yaml:5:3: warning: target secret.s matches no object of the input\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %s, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
	code, stdout, _ = runCLI(t, unmatchedFiles, cm, "lint", "-f", "-", "-n", "prod", "--fail-unmatched", "app.kpatch")
	if code != 1 || stdout != "app.kpatch:5:1: target configmap.other matches no object of the input\n" {
		t.Errorf("--fail-unmatched -n prod: exit %d, stdout:\n%s", code, stdout)
	}
	// without -f, lint has no objects to match
	if code, stdout, _ = runCLI(t, unmatchedFiles, "", "lint", "--fail-unmatched", "app.kpatch"); code != 0 || stdout != "" {
		t.Errorf("without -f: exit %d, stdout %q", code, stdout)
	}
}

func TestLintDirectory(t *testing.T) {
	files := map[string]string{
		"reg/a.kpatch":     "[deployment.web]\nreplicsa: 3\n",
		"reg/sub/b.kpatch": "[deployment.web]\nreplicsa: 4\n",
	}
	code, stdout, _ := runCLI(t, files, "", "lint", "reg")
	if code != 1 || !strings.Contains(stdout, "reg/a.kpatch:2:1") || strings.Contains(stdout, "b.kpatch") {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, files, "", "lint", "-R", "reg")
	if code != 1 || !strings.Contains(stdout, "reg/sub/b.kpatch:2:1") {
		t.Errorf("-R: exit %d, stdout:\n%s", code, stdout)
	}
}
