package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// applyOptions are the flags of kpatch apply.
type applyOptions struct {
	patches       []string
	inputs        []string
	recursive     bool
	output        string
	namespace     string
	failUnmatched bool
	vars          variableFlags
}

func newApplyCommand(s streams) *cobra.Command {
	o := &applyOptions{}
	cmd := &cobra.Command{
		Use:   "apply -p FILE|DIR|- ... -f FILE|DIR|- ...",
		Short: "Apply patch files to manifests and print the result",
		Long: `Apply patch files to the objects of the manifests and print every object,
patched or not, in input order: a YAML stream, or with -o json one object or a
v1 List of them, as kubectl prints. Items of a List are patched one by one.

The YAML stream is the input as it was written wherever the patches did not
change it: comments, key order, quoting, the spelling of scalars ("010", 1.10,
on), blank lines, document separators; only the changed values, entries and
list items are written anew, in the indentation of their document. JSON input
is printed from its objects, in YAML.

Patch files apply in the order given; a directory gives its .kpatch, .yaml and
.yml files in lexical order. When a file fails on an object, that file leaves
the object untouched, the other files still apply, the error goes to stderr and
the exit code is 1. A file section whose target matches no object of the input
is reported on stderr as a warning, or with --fail-unmatched as an error.`,
		Example: `  kpatch apply -p patches/ -f app.yaml
  kustomize build overlays/prod | kpatch apply -p prod.kpatch -f - --values values.yaml
  kpatch apply -p patches/ -f manifests/ -R --fail-unmatched -o json`,
		Args: noArgs("; patch files go with -p, manifests with -f"),
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(s) },
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.patches, "patch", "p", nil, "patch `FILE`, directory, or - for standard input (a .kpatch file); repeatable, applied in order")
	f.StringArrayVarP(&o.inputs, "filename", "f", nil, "manifests to patch: a YAML or JSON `FILE`, a directory, or - for standard input; repeatable")
	f.BoolVarP(&o.recursive, "recursive", "R", false, "read the directories of -f and -p recursively")
	f.StringVarP(&o.output, "output", "o", "yaml", "output `FORMAT`: yaml or json")
	f.StringVarP(&o.namespace, "namespace", "n", "", "`NAMESPACE` assumed for objects without metadata.namespace when matching namespace/ targets")
	f.BoolVar(&o.failUnmatched, "fail-unmatched", false, "a file section whose target matches no object of the input is an error (exit 1), not a warning")
	o.vars.register(f)
	_ = cmd.MarkFlagFilename("patch", "kpatch", "yaml", "yml")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"yaml", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// validate checks the command line.
func (o *applyOptions) validate() error {
	switch {
	case len(o.patches) == 0:
		return usageErrorf("at least one -p FILE is required")
	case len(o.inputs) == 0:
		return usageErrorf("-f FILE (or -f - for standard input) is required")
	case o.output != "yaml" && o.output != "json":
		return usageErrorf("-o must be yaml or json, not %q", o.output)
	}
	return checkStdinOnce(o.patches, o.inputs)
}

func (o *applyOptions) run(s streams) error {
	if err := o.validate(); err != nil {
		return err
	}
	vars, err := o.vars.load()
	if err != nil {
		return err
	}
	patchFiles, err := expandPaths(o.patches, patchExtensions, o.recursive)
	if err != nil {
		return err
	}
	inputFiles, err := expandPaths(o.inputs, manifestExtensions, o.recursive)
	if err != nil {
		return err
	}
	report := func(err error) { fmt.Fprintln(s.err, err) }
	patches, err := loadPatches(patchFiles, s.in, vars, report)
	if err != nil {
		return err
	}
	m, err := readManifests(inputFiles, s.in)
	if err != nil {
		return err
	}
	failed := false
	opts := kpatch.ApplyOptions{Namespace: o.namespace}
	for _, d := range m.docs {
		if err := d.apply(patches, opts); err != nil {
			report(err)
			failed = true
		}
	}
	for _, u := range unmatchedTargets(patches, objectsOf(m.docs, o.namespace), o.failUnmatched) {
		report(u)
		failed = failed || u.Fatal
	}
	if err := writeDocuments(s.out, m, o.output); err != nil {
		return err
	}
	if failed {
		return errReported
	}
	return nil
}
