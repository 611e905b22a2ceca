// Package conformance runs the kpatch CLI, built from this repository, on
// every case under testdata and compares what it prints with what the
// case expects.
//
// A case is a directory holding:
//
//	input.yaml     objects to patch (apply cases)
//	*.kpatch       patch files, passed as -p in lexical order, with the
//	*.yaml         YAML patch files (names other than input, expected, values)
//	values.yaml    optional, passed as --values
//	args           optional extra arguments, one a line
//	cmd            optional: "lint" runs kpatch lint on the patch files
//	expected.yaml  the objects expected on stdout, compared as data; with
//	               -o json in args, the CLI prints several objects as one
//	               v1 List, and the List's items are compared, so the file
//	               may hold the List or the objects
//	stderr.txt     optional: lines that must appear in the output's error
//	               stream (stdout too for lint); its presence means exit 1
//	warnings.txt   optional: lines that must appear in the same streams of
//	               a run that succeeds (exit 0), such as the warning for a
//	               file section whose target matches no object
//
// Run with -update to rewrite expected.yaml from the CLI's output.
package conformance

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
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

func runCase(t *testing.T, dir string) {
	patches, _ := filepath.Glob(filepath.Join(dir, "*.kpatch"))
	yamlPatches, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, p := range yamlPatches {
		switch filepath.Base(p) {
		case "input.yaml", "expected.yaml", "values.yaml":
		default:
			patches = append(patches, p)
		}
	}
	slices.Sort(patches)
	var args []string
	lint := strings.TrimSpace(readOptional(t, dir, "cmd")) == "lint"
	if lint {
		args = append(args, "lint")
		for _, p := range patches {
			args = append(args, filepath.Base(p))
		}
	} else {
		args = append(args, "apply", "-f", "input.yaml")
		for _, p := range patches {
			args = append(args, "-p", filepath.Base(p))
		}
	}
	if exists(filepath.Join(dir, "values.yaml")) {
		args = append(args, "--values", "values.yaml")
	}
	for _, line := range strings.Split(readOptional(t, dir, "args"), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			args = append(args, line)
		}
	}
	cmd := exec.Command(kpatchBin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("kpatch %s\nstderr:\n%s", strings.Join(args, " "), stderr.String())

	wantErrs := readOptional(t, dir, "stderr.txt")
	errText := stderr.String()
	if lint {
		errText += stdout.String()
	}
	if wantErrs != "" {
		if code != 1 {
			t.Errorf("exit code %d, want 1", code)
		}
	} else if code != 0 {
		t.Errorf("exit code %d, want 0; stderr:\n%s", code, stderr.String())
	}
	for _, want := range []string{wantErrs, readOptional(t, dir, "warnings.txt")} {
		for _, line := range strings.Split(want, "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.Contains(errText, line) {
				t.Errorf("errors and warnings do not contain %q:\n%s", line, errText)
			}
		}
	}
	if lint {
		return
	}
	expectedPath := filepath.Join(dir, "expected.yaml")
	if *update && (code == 0 || exists(expectedPath)) {
		if err := os.WriteFile(expectedPath, stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !exists(expectedPath) {
		if stdout.Len() != 0 {
			t.Errorf("stdout should be empty, got:\n%s", stdout.String())
		}
		return
	}
	want := decodeStream(t, readOptional(t, dir, "expected.yaml"))
	got := decodeStream(t, stdout.String())
	if jsonOutput(args) {
		want, got = listItems(want), listItems(got)
	}
	if !reflect.DeepEqual(got, want) {
		wantYAML, _ := yaml.Marshal(want)
		gotYAML, _ := yaml.Marshal(got)
		t.Errorf("output differs\n--- got:\n%s\n--- want:\n%s", gotYAML, wantYAML)
	}
}

// jsonOutput reports whether the arguments ask for -o json.
func jsonOutput(args []string) bool {
	for i, a := range args {
		if a == "-ojson" || a == "--output=json" || (a == "-o" || a == "--output") && i+1 < len(args) && args[i+1] == "json" {
			return true
		}
	}
	return false
}

// listItems replaces a stream that is one v1 List by the List's items.
func listItems(docs []any) []any {
	if len(docs) != 1 {
		return docs
	}
	list, ok := docs[0].(map[string]any)
	if !ok || list["apiVersion"] != "v1" || list["kind"] != "List" {
		return docs
	}
	items, _ := list["items"].([]any)
	return items
}

// decodeStream reads a YAML stream into plain data for comparison.
func decodeStream(t *testing.T, s string) []any {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(s)))
	var out []any
	for {
		doc, err := r.Read()
		if err != nil {
			break
		}
		var v any
		if err := yaml.Unmarshal(doc, &v); err != nil {
			t.Fatalf("invalid YAML: %v\n%s", err, doc)
		}
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

func readOptional(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
