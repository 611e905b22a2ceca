package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeCIBlock is the README's block of CLI commands for CI: the first
// shell block after the heading "## Test patches in CI".
var readmeCIBlock = regexp.MustCompile("(?s)\n## Test patches in CI\n.*?```sh\n(.*?)```")

// TestReadmeCICommandsWork runs every command of the README's CI block,
// as written, on the layout it names, and wants each to succeed with no
// file failing on an object and no warning: registry/ (the quick start's patch
// files, its values.yaml, parameters.yaml and test suites), manifests/
// (the quick start's app.yaml), deploy/registry.yaml (the quick start's
// registry ConfigMap) and namespaces.yaml (the opted-in namespace).
func TestReadmeCICommandsWork(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := readmeCIBlock.FindSubmatch(src)
	if m == nil {
		t.Fatal("README.md: no shell block under ## Test patches in CI")
	}
	quickstart := quickstartFiles(t) // before registryWithTests leaves the package's directory
	files := registryWithTests(t)
	files["manifests/app.yaml"] = quickstart["app.yaml"]
	files["deploy/registry.yaml"] = quickstart["registry.yaml"]
	files["namespaces.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {kpatch.dev/inject: enabled}\n"
	ran := 0
	for _, line := range strings.Split(string(m[1]), "\n") {
		command, _, _ := strings.Cut(line, "#")
		args := strings.Fields(command)
		if len(args) == 0 {
			continue
		}
		if args[0] != "kpatch" {
			t.Fatalf("README.md: %q is not a kpatch command", line)
		}
		ran++
		// explain reports a file that fails on an object and exits 0
		code, stdout, stderr := runCLI(t, files, "", args[1:]...)
		if out := stdout + stderr; code != 0 || strings.Contains(out, ": failed") || strings.Contains(out, "not defined") || strings.Contains(out, "warning") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.TrimSpace(command), code, stdout, stderr)
		}
	}
	if ran < 5 {
		t.Errorf("README.md: %d kpatch commands in the CI block", ran)
	}
}
