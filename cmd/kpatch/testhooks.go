package main

import (
	"cmp"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/internal/testsuite"
	"kpatch.dev/kpatch/internal/varflags"
)

// suiteRunner runs the tests of kpatch test as apply and lint run.
var suiteRunner = testsuite.Runner{Apply: applyTest, Lint: lintTest}

// testVariables are the variable flags of a test's options.
func testVariables(o testsuite.Options) *varflags.Flags {
	return &varflags.Flags{Parameters: testsuite.Deref(o.Parameters), Files: o.Values, Sets: o.Set, Strings: o.SetString}
}

// testPatches returns where a test's patch files come from: its patches,
// or its registry.
func testPatches(s *testsuite.Suite, o testsuite.Options, src filesource.Source) (patchInput, error) {
	own, recursive := s.OwnFiles(), testsuite.Deref(o.Recursive)
	if len(o.Registry) > 0 {
		files, err := testsuite.InputFiles(src, o.Registry, filesource.Registry, own, recursive)
		selector := defaultRegistrySelector
		if o.RegistrySelector != nil {
			selector = *o.RegistrySelector
		}
		return patchInput{registry: &registryFlags{files: files, selector: selector}}, err
	}
	files, err := testsuite.InputFiles(src, o.Patches, filesource.Patches, own, recursive)
	return patchInput{files: files}, err
}

// applyTest runs apply for a test.
func applyTest(s *testsuite.Suite, o testsuite.Options, source filesource.Source, resources []string, out *lint.Findings) (*manifest.Set, error) {
	src, found := source, &lint.Findings{}
	defer func() { out.List = append(out.List, found.List...) }()
	in, err := testPatches(s, o, src)
	if err != nil {
		return nil, err
	}
	if in.registry == nil {
		if in.vars, err = testVariables(o).Load(source, found); err != nil || found.Failed() {
			return nil, err
		}
	}
	run := applyRun{src: src, patches: in, inputs: resources, namespace: testsuite.Deref(o.Namespace), failUnmatched: testsuite.Deref(o.FailUnmatched),
		crds: crdFlag{paths: o.CRDs}}
	if testsuite.Deref(o.Admission) {
		run.admission = &admission{registryNamespace: cmp.Or(testsuite.Deref(o.RegistryNamespace), defaultRegistryNamespace), namespace: run.namespace}
	}
	if r := o.Request; r != nil {
		flags := requestFlags{operation: cmp.Or(r.Operation, "CREATE"), user: r.User, groups: r.Groups}
		if run.request, err = flags.request(); err != nil {
			return nil, err
		}
	}
	m, applied, err := run.apply()
	found.List = append(found.List, applied.List...)
	if m == nil {
		return nil, err
	}
	return m, err
}

// lintTest runs lint for a test, with its resources as lint -f.
func lintTest(s *testsuite.Suite, o testsuite.Options, source filesource.Source, resources []string, out *lint.Findings) error {
	src, found := source, &lint.Findings{}
	defer func() { out.List = append(out.List, found.List...) }()
	in, err := testPatches(s, o, src)
	if err != nil {
		return err
	}
	run := lintRun{src: src, patches: in, manifests: resources, namespace: testsuite.Deref(o.Namespace),
		failUnmatched: testsuite.Deref(o.FailUnmatched), failNotIdempotent: testsuite.Deref(o.FailNotIdempotent),
		crds: crdFlag{paths: o.CRDs}}
	if in.registry == nil {
		run.schemaFile = testsuite.Deref(o.Parameters)
		if run.patches.vars, run.schema, err = testVariables(o).LoadWithSchema(source, found); err != nil || found.Failed() {
			return err
		}
	}
	return run.lint(found)
}
