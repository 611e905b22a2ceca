package filesource

import (
	"os"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// suiteSkip is what a directory walk of patch files leaves out so that
// test suites may live inside a registry directory (docs/testing.md): every
// directory below the one walked that holds a kpatch-test.yaml, whole, and
// in the directory walked, its own kpatch-test.yaml and the files and
// directories that suite names (resources, values, parameters, expected
// files and expectations). A nil *suiteSkip leaves out nothing.
type suiteSkip struct {
	root  string
	named []string // cleaned paths, as the walk names them
}

// suiteSkipOf returns what a walk of root leaves out, or nil when sel
// does not leave out suites.
func (sel Selection) suiteSkipOf(root string) *suiteSkip {
	if !sel.suites {
		return nil
	}
	s := &suiteSkip{root: filepath.Clean(root)}
	if !holdsSuite(root) {
		return s
	}
	for _, p := range append(SuiteNamedFiles(filepath.Join(root, SuiteFileName)), SuiteFileName) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		s.named = append(s.named, filepath.Clean(p))
	}
	return s
}

// holdsSuite reports whether the directory dir holds a kpatch-test.yaml.
func holdsSuite(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, SuiteFileName))
	return err == nil && info.Mode().IsRegular()
}

// suitePaths are the fields of a suite, and of its tests, that name the
// suite's own files: those testsuite.Suite.OwnFiles gives. A field is a path or
// a list of them.
type suitePaths struct {
	Resources            any          `yaml:"resources"`
	Values               any          `yaml:"values"`
	Parameters           any          `yaml:"parameters"`
	Expected             any          `yaml:"expected"`
	ExpectedErrorsFile   any          `yaml:"expectedErrorsFile"`
	ExpectedWarningsFile any          `yaml:"expectedWarningsFile"`
	Tests                []suitePaths `yaml:"tests"`
}

// SuiteNamedFiles returns the files the suite file names as its own,
// relative to its directory. A suite that does not read names nothing
// (kpatch test reports its problem).
func SuiteNamedFiles(file string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var s suitePaths
	if yaml.Unmarshal(data, &s) != nil {
		return nil
	}
	var out []string
	for _, t := range append([]suitePaths{s}, s.Tests...) {
		for _, v := range []any{t.Resources, t.Values, t.Parameters, t.Expected, t.ExpectedErrorsFile, t.ExpectedWarningsFile} {
			out = append(out, pathsOf(v)...)
		}
	}
	return out
}

// pathsOf returns the non-empty paths of a field: a string or a list of
// strings.
func pathsOf(v any) []string {
	var out []string
	add := func(v any) {
		if p, ok := v.(string); ok && p != "" {
			out = append(out, p)
		}
	}
	if list, ok := v.([]any); ok {
		for _, it := range list {
			add(it)
		}
	} else {
		add(v)
	}
	return out
}

// dir reports whether the walk leaves out the directory at path, below
// the root: it holds a suite, or the root's suite names it.
func (s *suiteSkip) dir(path string) bool {
	return s != nil && filepath.Clean(path) != s.root && (holdsSuite(path) || s.names(path))
}

// file reports whether the walk leaves out the file at path: the root's
// suite names it, or a directory that holds it.
func (s *suiteSkip) file(path string) bool {
	return s != nil && s.names(path)
}

// names reports whether path is, or lies in, a path the root's suite
// names.
func (s *suiteSkip) names(path string) bool {
	path = filepath.Clean(path)
	for _, n := range s.named {
		if path == n || strings.HasPrefix(path, n+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// SuiteFileName is the name of a test suite file (testsuite.FileName).
const SuiteFileName = "kpatch-test.yaml"
