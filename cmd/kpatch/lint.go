package main

import (
	"github.com/spf13/cobra"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// lintOptions are the flags of kpatch lint.
type lintOptions struct {
	manifests     []string
	recursive     bool
	namespace     string
	failUnmatched bool
	// failNotIdempotent makes the engine's idempotence findings errors.
	failNotIdempotent bool
	vars              variableFlags
}

func newLintCommand(s streams) *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [-f MANIFESTS] FILE|DIR|-...",
		Short: "Check patch files without applying them",
		Long: `Check patch files without objects: syntax; paths and values against the schema
of every built-in kind (custom resources are not checked); with --values or
--set, variables too; and conflicts between the files given, which apply in the
order given. Problems go to stdout, one a line with its position; the exit code
is 1 if there is any.

Constructs that change an object again each time their file runs (a delete
by index; an entry over every item of a list written before an insertion
into it) are warnings: printed with the others, "warning:" after their
position, exit code 0; with --fail-not-idempotent they are errors.

With -f, lint also reads manifests and reports, as apply does, every file
section whose target matches none of their objects: a warning, or with
--fail-unmatched an error.

A directory gives its .kpatch, .yaml and .yml files, except values.yaml and
parameters.yaml (the values and parameters of a registry ConfigMap laid out
as a directory: pass values.yaml with --values).`,
		Example: `  kpatch lint patches/
  kpatch lint -f manifests/ -R --fail-unmatched patches/`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("expected one or more patch files or directories")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(s, args) },
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.manifests, "filename", "f", nil, "manifests to match the targets against: a YAML or JSON `FILE`, a directory, or - for standard input; repeatable")
	f.BoolVarP(&o.recursive, "recursive", "R", false, "read the directories of -f and of the arguments recursively")
	f.StringVarP(&o.namespace, "namespace", "n", "", "`NAMESPACE` assumed for objects of -f without metadata.namespace when matching namespace/ targets")
	f.BoolVar(&o.failUnmatched, "fail-unmatched", false, "with -f, a file section whose target matches no object is an error, not a warning")
	f.BoolVar(&o.failNotIdempotent, "fail-not-idempotent", false, "a construct that changes the object again each time its file runs is an error, not a warning")
	o.vars.register(f)
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"kpatch", "yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return cmd
}

func (o *lintOptions) run(s streams, args []string) error {
	if err := checkStdinOnce(args, o.manifests); err != nil {
		return err
	}
	src := stdinSource(s.in)
	vars, err := o.vars.load(src)
	if err != nil {
		return err
	}
	if o.vars.empty() {
		vars = nil // without variables, references are not checked
	}
	files, err := src.expand(args, patchSelection, o.recursive)
	if err != nil {
		return err
	}
	manifestFiles, err := src.expand(o.manifests, manifestSelection, o.recursive)
	if err != nil {
		return err
	}
	run := lintRun{src: src, patches: files, manifests: manifestFiles, vars: vars, namespace: o.namespace,
		failUnmatched: o.failUnmatched, failNotIdempotent: o.failNotIdempotent}
	found, err := run.lint()
	found.print(s.out)
	if err != nil {
		return err
	}
	if found.failed() {
		return errReported
	}
	return nil
}

// lintRun is what lint does once its command line is read. kpatch test
// runs it for each test that lints.
type lintRun struct {
	src                              fileSource
	patches, manifests               []string
	vars                             *kpatch.Variables // nil: references not checked
	namespace                        string
	failUnmatched, failNotIdempotent bool
}

// lint checks the files, and matches their targets against the objects
// of the manifests, if any. An error is a file that could not be read.
func (r *lintRun) lint() (*findings, error) {
	found := &findings{}
	patches, err := r.checkPatches(found)
	if err != nil || len(r.manifests) == 0 {
		return found, err
	}
	m, err := readManifests(r.manifests, r.src)
	if err != nil {
		return found, err
	}
	found.reportUnmatched(unmatchedTargets(patches, objectsOf(m.docs, r.namespace), r.failUnmatched))
	return found, nil
}

// checkPatches loads each file and reports its problems, then the
// conflicts between the files, in the order given as apply takes them. It
// returns the files that compiled.
func (r *lintRun) checkPatches(found *findings) ([]*kpatch.Patch, error) {
	var all []*kpatch.Patch
	for _, name := range r.patches {
		patches, err := loadPatches([]string{name}, r.src, r.vars, found)
		if err != nil {
			return nil, err
		}
		if len(patches) == 0 {
			continue
		}
		for _, e := range patches[0].Check() {
			found.reportCheck(e, r.failNotIdempotent)
		}
		all = append(all, patches[0])
	}
	for _, c := range kpatch.Conflicts(all) {
		found.error(c)
	}
	return all, nil
}
