package testsuite

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"kpatch.dev/kpatch/internal/filesource"
)

// FileName is the exact name of a test suite file.
const FileName = "kpatch-test.yaml"

// Suite is a kpatch-test.yaml: patch files, inputs and options shared
// by its tests, and the tests. Paths are relative to the suite's
// directory. docs/testing.md describes the format.
type Suite struct {
	Name    string `yaml:"name"`
	Options `yaml:",inline"`
	Tests   []*Case `yaml:"tests"`

	file string // the suite file, as found
}

// Options are what a suite gives every test and a test may replace:
// the counterparts of the flags of apply and lint.
type Options struct {
	Patches           StringList `yaml:"patches"`
	Registry          StringList `yaml:"registry"`
	RegistrySelector  *string    `yaml:"registrySelector"`
	Parameters        *string    `yaml:"parameters"`
	Resources         StringList `yaml:"resources"`
	Values            StringList `yaml:"values"`
	Set               StringList `yaml:"set"`
	SetString         StringList `yaml:"setString"`
	Namespace         *string    `yaml:"namespace"`
	Recursive         *bool      `yaml:"recursive"`
	FailUnmatched     *bool      `yaml:"failUnmatched"`
	FailNotIdempotent *bool      `yaml:"failNotIdempotent"`
	// Admission evaluates each resource alone, as the webhook admits it
	// (apply --admission); RegistryNamespace is --registry-namespace.
	Admission         *bool   `yaml:"admission"`
	RegistryNamespace *string `yaml:"registryNamespace"`
	// CRDs are CustomResourceDefinition manifests, files or directories
	// (--crd): the custom resources files change are held to their
	// schemas.
	CRDs StringList `yaml:"crds"`
	// Request is the request the files' conditions and operations read
	// (--request-operation, --request-user, --request-groups); nil: a
	// CREATE by an unnamed user.
	Request *Request `yaml:"request"`
}

// Request is the admission request a test's objects arrive in.
type Request struct {
	// Operation is CREATE (the default) or UPDATE.
	Operation string     `yaml:"operation"`
	User      string     `yaml:"user"`
	Groups    StringList `yaml:"groups"`
}

// Case is one test: a run of apply (or, with lint, of lint) and what
// it must give.
type Case struct {
	Name    string `yaml:"name"`
	Options `yaml:",inline"`
	Lint    bool `yaml:"lint"`
	// Expected are the files holding the objects apply must print; nil:
	// not checked; empty: none.
	Expected             StringList `yaml:"expected"`
	ExpectedErrors       StringList `yaml:"expectedErrors"`
	ExpectedErrorsFile   string     `yaml:"expectedErrorsFile"`
	ExpectedWarnings     StringList `yaml:"expectedWarnings"`
	ExpectedWarningsFile string     `yaml:"expectedWarningsFile"`

	line int // where the test starts in the suite file
}

// StringList is a list of strings (paths, assignments, messages) that may
// be written as one string. It is nil when the field is absent and empty,
// not nil, for [].
type StringList []string

// UnmarshalYAML reads one string or a sequence of strings.
func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = StringList{n.Value}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	*l = append(StringList{}, list...)
	return nil
}

// stringListOf is the list of the string p points to, if any and not
// empty (an empty string says "none": parameters: "" in a test leaves out
// the suite's schema).
func stringListOf(p *string) StringList {
	if p == nil || *p == "" {
		return nil
	}
	return StringList{*p}
}

// or returns l, or base when l is not given.
func (l StringList) or(base StringList) StringList {
	if l == nil {
		return base
	}
	return l
}

// over returns the options of a test: its own where given, else the
// suite's.
func (o Options) over(base Options) Options {
	o.Patches = o.Patches.or(base.Patches)
	o.Registry = o.Registry.or(base.Registry)
	o.RegistrySelector = cmpOr(o.RegistrySelector, base.RegistrySelector)
	o.Parameters = cmpOr(o.Parameters, base.Parameters)
	o.Resources = o.Resources.or(base.Resources)
	o.Values = o.Values.or(base.Values)
	o.Set = o.Set.or(base.Set)
	o.SetString = o.SetString.or(base.SetString)
	o.Namespace = cmpOr(o.Namespace, base.Namespace)
	o.Recursive = cmpOr(o.Recursive, base.Recursive)
	o.FailUnmatched = cmpOr(o.FailUnmatched, base.FailUnmatched)
	o.FailNotIdempotent = cmpOr(o.FailNotIdempotent, base.FailNotIdempotent)
	o.Admission = cmpOr(o.Admission, base.Admission)
	o.RegistryNamespace = cmpOr(o.RegistryNamespace, base.RegistryNamespace)
	o.CRDs = o.CRDs.or(base.CRDs)
	o.Request = cmpOr(o.Request, base.Request)
	return o
}

// cmpOr returns p, or base when p is nil.
func cmpOr[T any](p, base *T) *T {
	if p == nil {
		return base
	}
	return p
}

// Deref returns what p points to, or the zero value.
func Deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// errSuite is the cause of every problem of a suite file itself.
var errSuite = errors.New("invalid test suite")

// suiteError is a problem of a suite file at a line (0: the whole file).
type suiteError struct {
	file string
	line int
	msg  string
}

func (e *suiteError) Error() string {
	if e.line == 0 {
		return e.file + ": " + e.msg
	}
	return e.file + ":" + strconv.Itoa(e.line) + ": " + e.msg
}

func (e *suiteError) Unwrap() error { return errSuite }

// yamlErrorLine finds the line in a message of the YAML library.
var yamlErrorLine = regexp.MustCompile(`line (\d+): (.*)`)

// Load reads and checks a suite file. Unknown fields are errors, as
// kubectl's strict decoding makes them.
func Load(file string) (*Suite, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, filesource.PathError(file, err)
	}
	s := &Suite{file: file}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil {
		return nil, suiteDecodeError(file, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, suiteDecodeError(file, err)
	}
	for i, n := range testNodes(&root) {
		if i < len(s.Tests) && s.Tests[i] != nil {
			s.Tests[i].line = n.Line
		}
	}
	return s, s.validate()
}

// suiteDecodeError places an error of the YAML library at its line.
func suiteDecodeError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	if m := yamlErrorLine.FindStringSubmatch(msg); m != nil && strings.HasPrefix(msg, "line ") {
		n, _ := strconv.Atoi(m[1])
		return &suiteError{file: file, line: n, msg: m[2]}
	}
	return &suiteError{file: file, msg: msg}
}

// testNodes returns the nodes of the items of the suite's tests.
func testNodes(root *yaml.Node) []*yaml.Node {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "tests" && m.Content[i+1].Kind == yaml.SequenceNode {
			return m.Content[i+1].Content
		}
	}
	return nil
}

// validate checks what decoding cannot: every test has a name, patch
// files, and inputs when it applies.
func (s *Suite) validate() error {
	if len(s.Tests) == 0 {
		return &suiteError{file: s.file, msg: "no tests: a suite lists its tests under tests:"}
	}
	for i, t := range s.Tests {
		if t == nil {
			return &suiteError{file: s.file, msg: fmt.Sprintf("test %d is empty", i+1)}
		}
		o := t.Options.over(s.Options)
		fail := func(msg string) error { return &suiteError{file: s.file, line: t.line, msg: msg} }
		switch {
		case t.Name == "":
			return fail("a test needs a name")
		case len(o.Patches) == 0 && len(o.Registry) == 0:
			return fail(fmt.Sprintf("test %q: no patches (patches: files or directories, or registry: ConfigMap manifests, in the suite or the test)", t.Name))
		case len(o.Patches) > 0 && len(o.Registry) > 0:
			return fail(fmt.Sprintf("test %q: both patches and registry: a test takes the patch files of one or the other", t.Name))
		case len(o.Registry) > 0 && (len(o.Values) > 0 || len(o.Set) > 0 || len(o.SetString) > 0 || o.Parameters != nil):
			return fail(fmt.Sprintf("test %q: a registry carries its values (values.yaml, parameters.yaml): values, set, setString and parameters go with patches", t.Name))
		case !t.Lint && len(o.Resources) == 0:
			return fail(fmt.Sprintf("test %q: no resources to apply the patches to (or lint: true to check the patches alone)", t.Name))
		case t.Lint && t.Expected != nil:
			return fail(fmt.Sprintf("test %q: a lint test prints no objects: expected is for tests that apply", t.Name))
		case t.Lint && Deref(o.Admission):
			return fail(fmt.Sprintf("test %q: admission is for tests that apply, not lint tests", t.Name))
		case o.RegistryNamespace != nil && !Deref(o.Admission):
			return fail(fmt.Sprintf("test %q: registryNamespace goes with admission: true", t.Name))
		case t.Lint && o.Request != nil && t.Options.Request != nil:
			return fail(fmt.Sprintf("test %q: request is for tests that apply, not lint tests", t.Name))
		case o.Request != nil && !slices.Contains([]string{"", "CREATE", "UPDATE"}, strings.ToUpper(o.Request.Operation)):
			return fail(fmt.Sprintf("test %q: request.operation must be CREATE or UPDATE, not %q", t.Name, o.Request.Operation))
		}
		for _, list := range []StringList{o.Patches, o.Registry, o.Resources, o.Values, t.Expected, stringListOf(o.Parameters)} {
			for _, p := range list {
				if p == filesource.StdinName || p == "" {
					return fail(fmt.Sprintf("test %q: %q is not a file a suite can name", t.Name, p))
				}
			}
		}
	}
	return nil
}

// dir is the directory the suite's paths are relative to.
func (s *Suite) dir() string { return filepath.Dir(s.file) }

// displayName names the suite in the output: its name, else its
// directory.
func (s *Suite) displayName() string {
	if s.Name != "" {
		return s.Name
	}
	return s.dir()
}

// OwnFiles are the files the suite names as inputs of its tests other
// than patches, and itself: a directory named in patches does not give
// them.
func (s *Suite) OwnFiles() map[string]bool {
	own := map[string]bool{FileName: true}
	add := func(paths ...string) {
		for _, p := range paths {
			if p != "" {
				own[filepath.Clean(p)] = true
			}
		}
	}
	add(s.Resources...)
	add(s.Values...)
	add(Deref(s.Parameters))
	for _, t := range s.Tests {
		add(t.Resources...)
		add(t.Values...)
		add(Deref(t.Parameters))
		add(t.Expected...)
		add(t.ExpectedErrorsFile, t.ExpectedWarningsFile)
	}
	return own
}

// Find returns the suite files: a file named explicitly, and in a
// directory every kpatch-test.yaml at any depth, in lexical order
// (directories whose names start with a dot are not searched).
func Find(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, filesource.PathError(a, err)
		}
		if !info.IsDir() {
			files = append(files, a)
			continue
		}
		n := len(files)
		err = filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && path != a && strings.HasPrefix(d.Name(), "."):
				return fs.SkipDir
			case !d.IsDir() && d.Name() == FileName:
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(files) == n {
			return nil, fmt.Errorf("%s: no %s in the directory or below", a, FileName)
		}
	}
	return files, nil
}
