package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// testResult is what one test gave: whether it passed, why not, and a
// diff of the objects when they differ.
type testResult struct {
	name     string
	failures []string
	diff     string
}

func (r *testResult) failf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *testResult) passed() bool { return len(r.failures) == 0 && r.diff == "" }

// testOutcome is what a run of apply or lint gave: the objects printed
// (nil: nothing printed), the errors and the warnings.
type testOutcome struct {
	output           *manifests
	errors, warnings []string
}

// runTest runs one test of the suite; with update, it rewrites the test's
// expected file from the output instead of comparing.
func runTest(s *testSuite, t *testCase, update bool) *testResult {
	r := &testResult{name: s.displayName() + ": " + t.Name}
	out, err := execute(s, t)
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
func execute(s *testSuite, t *testCase) (*testOutcome, error) {
	o := t.testOptions.over(s.testOptions)
	src := fileSource{dir: s.dir(), stdin: strings.NewReader("")}
	recursive := value(o.Recursive)
	resources, err := src.expand(o.Resources, manifestSelection, recursive)
	if err != nil {
		return nil, err
	}
	found := &findings{}
	out := &testOutcome{}
	if t.Lint {
		err = lintTest(s, o, src, resources, found)
	} else {
		out.output, err = applyTest(s, o, src, resources, found)
	}
	for _, f := range found.list {
		if f.warning {
			out.warnings = append(out.warnings, f.err.Error())
		} else {
			out.errors = append(out.errors, f.err.Error())
		}
	}
	if err != nil { // a file that could not be read, as apply reports it
		out.errors = append(out.errors, err.Error())
	}
	return out, nil
}

// testVariables are the variable flags of a test's options.
func testVariables(o testOptions) *variableFlags {
	return &variableFlags{parameters: value(o.Parameters), files: o.Values, sets: o.Set, strings: o.SetString}
}

// testPatches returns where a test's patch files come from: its patches,
// or its registry.
func testPatches(s *testSuite, o testOptions, src fileSource) (patchInput, error) {
	own, recursive := s.ownFiles(), value(o.Recursive)
	if len(o.Registry) > 0 {
		files, err := suiteInputFiles(src, o.Registry, manifestSelection, own, recursive)
		selector := defaultRegistrySelector
		if o.RegistrySelector != nil {
			selector = *o.RegistrySelector
		}
		return patchInput{registry: &registryFlags{files: files, selector: selector}}, err
	}
	files, err := suiteInputFiles(src, o.Patches, patchSelection, own, recursive)
	return patchInput{files: files}, err
}

// applyTest runs apply for a test.
func applyTest(s *testSuite, o testOptions, src fileSource, resources []string, found *findings) (*manifests, error) {
	in, err := testPatches(s, o, src)
	if err != nil {
		return nil, err
	}
	if in.registry == nil {
		if in.vars, err = testVariables(o).load(src, found); err != nil || found.failed() {
			return nil, err
		}
	}
	run := applyRun{src: src, patches: in, inputs: resources, namespace: value(o.Namespace), failUnmatched: value(o.FailUnmatched)}
	m, applied, err := run.apply()
	found.list = append(found.list, applied.list...)
	return m, err
}

// lintTest runs lint for a test, with its resources as lint -f.
func lintTest(s *testSuite, o testOptions, src fileSource, resources []string, found *findings) error {
	in, err := testPatches(s, o, src)
	if err != nil {
		return err
	}
	run := lintRun{src: src, patches: in, manifests: resources, namespace: value(o.Namespace),
		failUnmatched: value(o.FailUnmatched), failNotIdempotent: value(o.FailNotIdempotent)}
	if in.registry == nil {
		run.schemaFile = value(o.Parameters)
		if run.patches.vars, run.schema, err = lintVariables(testVariables(o), src, found); err != nil || found.failed() {
			return err
		}
	}
	return run.lint(found)
}

// suiteInputFiles expands the patch files (or registry manifests) of a test:
// a directory gives its files as -p DIR (--registry DIR) does, except the
// suite's own files.
func suiteInputFiles(src fileSource, names []string, sel fileSelection, own map[string]bool, recursive bool) ([]string, error) {
	var files []string
	for _, name := range names {
		found, err := src.expand([]string{name}, sel, recursive)
		if err != nil {
			return nil, err
		}
		if info, err := os.Stat(src.path(name)); err != nil || !info.IsDir() {
			files = append(files, found...)
			continue
		}
		for _, f := range found {
			if !own[filepath.Clean(f)] && filepath.Base(f) != suiteFileName {
				files = append(files, f)
			}
		}
	}
	return files, nil
}

// expectedLines returns the lines a test expects: those written in the
// suite and those of a file, blank lines left out.
func expectedLines(s *testSuite, inline stringList, file string) ([]string, error) {
	var lines []string
	for _, l := range inline {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if file == "" {
		return lines, nil
	}
	_, data, err := fileSource{dir: s.dir()}.read(file)
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
func checkLines(r *testResult, kind string, want, got []string) {
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
func compareObjects(r *testResult, s *testSuite, t *testCase, output *manifests) {
	m, err := readManifests(t.Expected, fileSource{dir: s.dir()})
	if err != nil {
		r.failf("%v", err)
		return
	}
	var got []map[string]any
	if output != nil {
		got = objectsOfDocs(output.docs)
	}
	want := objectsOfDocs(m.docs)
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
func objectsOfDocs(docs []*document) []map[string]any {
	objs := make([]map[string]any, len(docs))
	for i, d := range docs {
		objs[i] = d.obj
	}
	return objs
}

// sameObjects reports whether two lists of objects are equal, as data.
func sameObjects(a, b []map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !kpatch.Equal(a[i], b[i]) {
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
func updateExpected(r *testResult, s *testSuite, t *testCase, output *manifests) {
	if output == nil {
		return // nothing printed: the errors say why
	}
	var b bytes.Buffer
	if err := writeDocuments(&b, output, "yaml"); err != nil {
		r.failf("%v", err)
		return
	}
	if err := os.WriteFile(filepath.Join(s.dir(), t.Expected[0]), b.Bytes(), 0o644); err != nil {
		r.failf("%v", pathError(t.Expected[0], err))
	}
}
