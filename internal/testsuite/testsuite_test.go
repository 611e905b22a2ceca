package testsuite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
)

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: x}\n"

// writeSuite writes the files of a suite into a new directory and
// returns the suite file.
func writeSuite(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, FileName)
}

// echo is a runner whose apply prints its resources as they are, with
// the warning "w", and whose lint finds the error "e".
var echo = Runner{
	Apply: func(_ *Suite, _ Options, src filesource.Source, resources []string, found *lint.Findings) (*manifest.Set, error) {
		found.Warn(errors.New("w"))
		return manifest.ReadFiles(resources, src)
	},
	Lint: func(_ *Suite, _ Options, _ filesource.Source, _ []string, found *lint.Findings) error {
		found.Add(errors.New("e"))
		return nil
	},
}

func TestRunComparesWithTheRunnersOutput(t *testing.T) {
	file := writeSuite(t, map[string]string{
		FileName: `name: s
patches: p.kpatch
resources: in.yaml
tests:
- name: same
  expected: in.yaml
  expectedWarnings: w
- name: other
  expected: other.yaml
- name: lints
  lint: true
  expectedErrors: [e]
`,
		"in.yaml":    cm,
		"other.yaml": strings.Replace(cm, "a: x", "a: z", 1),
	})
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	var results []*Result
	for _, c := range s.Tests {
		results = append(results, Run(s, c, false, echo))
	}
	if !results[0].Passed() || !results[2].Passed() {
		t.Errorf("failures: %v, %v", results[0].failures, results[2].failures)
	}
	if results[1].Passed() || !strings.Contains(results[1].diff, "-  a: z\n+  a: x\n") {
		t.Errorf("the objects differ: %q", results[1].diff)
	}
	var b strings.Builder
	if failed := RunFiles(&b, []string{file}, false, echo); failed != 1 || !strings.HasSuffix(b.String(), "2 passed, 1 failed\n") {
		t.Errorf("%d failed:\n%s", failed, b.String())
	}
}

func TestLoadPlacesProblemsAtTheirLine(t *testing.T) {
	for text, want := range map[string]string{
		"tests:\n- name: a\n  patches: p\n  resource: x\n":                            ":4: field resource not found",
		"tests:\n- name: a\n  resources: r\n":                                         ":2: test \"a\": no patches",
		"name: x\n":                                                                   ": no tests",
		"admission: true\ntests:\n- name: a\n  patches: p\n  lint: true\n":            `:3: test "a": admission is for tests that apply`,
		"tests:\n- name: a\n  patches: p\n  resources: r\n  registryNamespace: reg\n": `:2: test "a": registryNamespace goes with admission: true`,
	} {
		_, err := Load(writeSuite(t, map[string]string{FileName: text}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", text, err, want)
		}
	}
}
