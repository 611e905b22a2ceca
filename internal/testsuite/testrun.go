package testsuite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// Result is what one test gave: whether it passed, why not, and a
// diff of the objects when they differ.
type Result struct {
	name     string
	failures []string
	diff     string
}

func (r *Result) failf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *Result) Passed() bool { return len(r.failures) == 0 && r.diff == "" }

// testOutcome is what a run of apply or lint gave: the objects printed
// (nil: nothing printed), the errors and the warnings.
type testOutcome struct {
	output           *manifest.Set
	errors, warnings []string
}

// Runner runs apply and lint for a test, as the commands do: each takes
// the test's options, where its files are, its resources, and records
// what it finds; apply returns the objects it prints (nil: nothing
// printed). An error is a file that could not be read.
type Runner struct {
	Apply func(s *Suite, o Options, src filesource.Source, resources []string, found *lint.Findings) (*manifest.Set, error)
	Lint  func(s *Suite, o Options, src filesource.Source, resources []string, found *lint.Findings) error
}

// Run runs one test of the suite with run; with update, it rewrites
// the test's expected file from the output instead of comparing.
func Run(s *Suite, t *Case, update bool, run Runner) *Result {
	r := &Result{name: s.displayName() + ": " + t.Name}
	out, err := execute(s, t, run)
	if err != nil {
		r.failf("%v", err)
		return r
	}
	expectedErrors, err := expectedLines(s, t.ExpectedErrors, t.ExpectedErrorsFile)
	if err != nil {
		r.failf("%v", err)
		return r
	}
	expectedWarnings, err := expectedLines(s, t.ExpectedWarnings, t.ExpectedWarningsFile)
	if err != nil {
		r.failf("%v", err)
		return r
	}
	checkLines(r, "error", expectedErrors, out.errors)
	checkLines(r, "warning", expectedWarnings, out.warnings)
	if len(expectedErrors) == 0 {
		for _, e := range out.errors {
			r.failf("unexpected error: %s", e)
		}
	}
	if t.Expected == nil {
		return r
	}
	if update && len(t.Expected) == 1 {
		updateExpected(r, s, t, out.output)
		return r
	}
	compareObjects(r, s, t, out.output)
	return r
}

// execute runs apply, or lint, as the test's options say.
func execute(s *Suite, t *Case, run Runner) (*testOutcome, error) {
	o := t.Options.over(s.Options)
	src := filesource.Source{Dir: s.dir(), Stdin: strings.NewReader("")}
	recursive := Deref(o.Recursive)
	resources, err := src.Expand(o.Resources, filesource.Manifests, recursive)
	if err != nil {
		return nil, err
	}
	found := &lint.Findings{}
	out := &testOutcome{}
	if t.Lint {
		err = run.Lint(s, o, src, resources, found)
	} else {
		out.output, err = run.Apply(s, o, src, resources, found)
	}
	for _, f := range found.List {
		if f.Warning {
			out.warnings = append(out.warnings, f.Err.Error())
		} else {
			out.errors = append(out.errors, f.Err.Error())
		}
	}
	if err != nil { // a file that could not be read, as apply reports it
		out.errors = append(out.errors, err.Error())
	}
	return out, nil
}

// InputFiles expands the patch files (or registry manifests) of a test:
// a directory gives its files as -p DIR (--registry DIR) does, except the
// suite's own files.
func InputFiles(src filesource.Source, names []string, sel filesource.Selection, own map[string]bool, recursive bool) ([]string, error) {
	var files []string
	for _, name := range names {
		found, err := src.Expand([]string{name}, sel, recursive)
		if err != nil {
			return nil, err
		}
		if info, err := os.Stat(src.Path(name)); err != nil || !info.IsDir() {
			files = append(files, found...)
			continue
		}
		for _, f := range found {
			if !own[filepath.Clean(f)] && filepath.Base(f) != FileName {
				files = append(files, f)
			}
		}
	}
	return files, nil
}

// expectedLines returns the lines a test expects: those written in the
// suite and those of a file, blank lines left out.
func expectedLines(s *Suite, inline StringList, file string) ([]string, error) {
	var lines []string
	for _, l := range inline {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if file == "" {
		return lines, nil
	}
	_, data, err := filesource.Source{Dir: s.dir()}.Read(file)
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// checkLines fails the test for each expected line that no reported
// problem contains.
func checkLines(r *Result, kind string, want, got []string) {
	missing := false
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
			r.failf("expected %s not reported: %q", kind, w)
			missing = true
		}
	}
	if missing {
		for _, g := range got {
			r.failf("reported %s: %s", kind, g)
		}
	}
}

// compareObjects compares the objects printed with those of the expected
// files, as data; a difference is shown as a unified diff of their YAML.
func compareObjects(r *Result, s *Suite, t *Case, output *manifest.Set) {
	m, err := manifest.ReadFiles(t.Expected, filesource.Source{Dir: s.dir()})
	if err != nil {
		r.failf("%v", err)
		return
	}
	var got []map[string]any
	if output != nil {
		got = objectsOfDocs(output.Docs)
	}
	want := objectsOfDocs(m.Docs)
	if sameObjects(got, want) {
		return
	}
	wantYAML, err1 := objectsYAML(want)
	gotYAML, err2 := objectsYAML(got)
	if err := errors.Join(err1, err2); err != nil {
		r.failf("%v", err)
		return
	}
	r.diff = udiff.Unified(strings.Join(t.Expected, ", "), "output", wantYAML, gotYAML)
	if r.diff == "" { // equal YAML, different values (3 and "3")
		r.failf("the objects differ from %s only in the types of values", strings.Join(t.Expected, ", "))
	}
}

// objectsOfDocs returns the objects of the documents.
func objectsOfDocs(docs []*manifest.Document) []map[string]any {
	objs := make([]map[string]any, len(docs))
	for i, d := range docs {
		objs[i] = d.Obj
	}
	return objs
}

// sameObjects reports whether two lists of objects are equal, as data.
func sameObjects(a, b []map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !jsonvalue.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// objectsYAML prints objects as a YAML stream, keys sorted, for a diff.
func objectsYAML(objs []map[string]any) (string, error) {
	var b strings.Builder
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		y, err := yaml.Marshal(o)
		if err != nil {
			return "", err
		}
		b.Write(y)
	}
	return b.String(), nil
}

// updateExpected writes the output, as apply prints it, to the test's
// one expected file. A test that expects nothing (expected: []) or the
// objects of several files is compared, not updated.
func updateExpected(r *Result, s *Suite, t *Case, output *manifest.Set) {
	if output == nil {
		return // nothing printed: the errors say why
	}
	var b bytes.Buffer
	if err := manifest.Write(&b, output, "yaml"); err != nil {
		r.failf("%v", err)
		return
	}
	if err := os.WriteFile(filepath.Join(s.dir(), t.Expected[0]), b.Bytes(), 0o644); err != nil {
		r.failf("%v", filesource.PathError(t.Expected[0], err))
	}
}

// Print prints a test's line, and for a failure why and the diff.
func Print(w io.Writer, r *Result) {
	if r.Passed() {
		fmt.Fprintf(w, "PASS %s\n", r.name)
		return
	}
	fmt.Fprintf(w, "FAIL %s\n", r.name)
	for _, f := range r.failures {
		fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(f, "\n", "\n    "))
	}
	fmt.Fprint(w, r.diff)
}

// RunFiles runs the tests of every suite file with run, in order, and
// prints a line for each (see Print), then a last line that counts them:
// "N passed, N failed". A suite that cannot be read fails as one test.
// It returns how many failed.
func RunFiles(w io.Writer, files []string, update bool, run Runner) int {
	passed, failed := 0, 0
	for _, f := range files {
		suite, err := Load(f)
		if err != nil {
			fmt.Fprintf(w, "FAIL %s\n    %v\n", f, err)
			failed++
			continue
		}
		for _, t := range suite.Tests {
			r := Run(suite, t, update, run)
			Print(w, r)
			if r.Passed() {
				passed++
			} else {
				failed++
			}
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
	return failed
}
