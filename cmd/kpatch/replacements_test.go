package main

import (
	"strings"
	"testing"
)

const replResources = `apiVersion: v1
kind: ConfigMap
metadata:
  name: release
data:
  version: "2.0" # set by CI
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
  data:
    version: unknown
`

const replFile = `replacements:
- source:
    kind: ConfigMap
    name: release
    fieldPath: data.version
  targets:
  - select:
      name: app
    fieldPaths: [data.version]
`

func TestApplyReplacementsOverListItems(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"repl.yaml": replFile, "in.yaml": replResources},
		"", "apply", "-p", "repl.yaml", "-f", "in.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `version: "2.0" # set by CI`) {
		t.Errorf("the source document is not kept as written:\n%s", stdout)
	}
	if strings.Contains(stdout, "unknown") || strings.Count(stdout, `"2.0"`) != 2 {
		t.Errorf("the List item did not get the value:\n%s", stdout)
	}
}

func TestApplyReplacementsErrorLeavesObjects(t *testing.T) {
	broken := strings.Replace(replFile, "name: release", "name: releases", 1)
	code, stdout, stderr := runCLI(t, map[string]string{"repl.yaml": broken, "p.kpatch": "[configmap.release]\ndata.extra: x\n"},
		replResources, "apply", "-p", "repl.yaml", "-p", "p.kpatch", "-f", "-")
	if code != 1 {
		t.Errorf("exit %d; want 1", code)
	}
	if want := "repl.yaml:3:5: nothing selected by ConfigMap.[noVer].[noGrp]/releases.[noNs]"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q; want %q", stderr, want)
	}
	if !strings.Contains(stdout, "version: unknown") || !strings.Contains(stdout, "extra: x") {
		t.Errorf("want the objects untouched by the replacements and patched by p.kpatch:\n%s", stdout)
	}
}

func TestLintReplacements(t *testing.T) {
	code, stdout, _ := runCLI(t, map[string]string{"repl.yaml": strings.Replace(replFile, "fieldPaths", "fieldpats", 1)},
		"", "lint", "repl.yaml")
	if code != 1 || !strings.Contains(stdout, "repl.yaml:9:5: ") {
		t.Errorf("exit %d; want 1 and the unknown key at its position:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, map[string]string{"repl.yaml": replFile}, "", "lint", "repl.yaml")
	if code != 0 || stdout != "" {
		t.Errorf("exit %d; a valid replacements file has no problem:\n%s", code, stdout)
	}
}
