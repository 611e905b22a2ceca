// Package conformance runs the kpatch CLI, built from this repository, on
// every case under testdata: each case directory is a test suite of
// `kpatch test` (its kpatch-test.yaml, docs/testing.md), so the project's
// biggest suite runs through the command users run theirs with.
//
// A case is a directory holding (registry cases, reg*, name registry:
// [registry.yaml], ConfigMap manifests, instead of patches: [.]):
//
//	kpatch-test.yaml  the suite: patches: [.] (the case's *.kpatch and YAML
//	                  patch files, in lexical order), resources:
//	                  [input.yaml], values, set, parameters, and one test
//	                  (or a few variations of one): apply (with expected)
//	                  or lint: true
//	input.yaml        objects to patch (apply cases)
//	*.kpatch, *.yaml  patch files
//	values.yaml       optional, the suite's values
//	expected.yaml     the objects expected on stdout, compared as data
//	                  (expected: [] when nothing may be printed)
//	stderr.txt        optional: lines each of which an error must contain
//	                  (expectedErrorsFile); without it, any error fails
//	warnings.txt      optional: lines each of which a warning must contain
//	                  (expectedWarningsFile)
//
// Run with -update to rewrite expected.yaml from the CLI's output
// (kpatch test --update).
package conformance

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite expected.yaml from the CLI's output")

var kpatchBin string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "kpatch-conformance")
	if err != nil {
		panic(err)
	}
	kpatchBin = filepath.Join(dir, "kpatch")
	build := exec.Command("go", "build", "-o", kpatchBin, "kpatch.dev/kpatch/cmd/kpatch")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		panic("building kpatch: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// summary is the last line of kpatch test.
var summary = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed\n\z`)

func TestConformance(t *testing.T) {
	cases, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range cases {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			runCase(t, dir)
		})
	}
	if n == 0 {
		t.Fatal("no conformance cases found")
	}
}

// runCase runs kpatch test on the case's suite: every test passed (a case
// holds one test, or a few variations of one).
func runCase(t *testing.T, dir string) {
	suite := filepath.Join(dir, "kpatch-test.yaml")
	if _, err := os.Stat(suite); err != nil {
		t.Fatalf("every case is a kpatch test suite: %v", err)
	}
	args := []string{"test", suite}
	if *update {
		args = append(args, "--update")
	}
	out, err := exec.Command(kpatchBin, args...).CombinedOutput()
	m := summary.FindSubmatch(out)
	if err != nil || m == nil || string(m[1]) == "0" || string(m[2]) != "0" {
		t.Errorf("kpatch %s: %v, want every test passed:\n%s", strings.Join(args, " "), err, out)
	}
}
