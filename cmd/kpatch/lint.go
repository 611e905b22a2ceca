package main

import (
	"errors"
	"github.com/spf13/cobra"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/internal/paramusage"
	"kpatch.dev/kpatch/internal/varflags"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
	"kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/pkg/schema"
)

// lintOptions are the flags of kpatch lint.
type lintOptions struct {
	manifests     []string
	recursive     bool
	namespace     string
	failUnmatched bool
	// failNotIdempotent makes the engine's idempotence findings errors.
	failNotIdempotent bool
	vars              varflags.Flags
	registry          registryFlags
	output            string
	crds              crdFlag
}

func newLintCommand(s streams) *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [-f MANIFESTS] (FILE|DIR|-... | --registry FILE|DIR ...)",
		Short: "Check patch files without applying them",
		Long: `Check patch files without objects: syntax; paths and values against the schema
of every built-in kind (custom resources are not checked); with --values or
--set, variables too; and conflicts between the files given, in the order
they apply. Problems go to stdout, one a line with its position; the exit code
is 1 if there is any.

A field that several files set to different values is one problem, however
many files set it: the line names the target, the field, the first files
with their values, how many more there are, and the file that wins (the one
that applies last). Useless overrides (below) are grouped the same way. With
-o json, the problems are one JSON document, each with every file involved
and, for a contested field, every pair of files in conflict.

Constructs that change an object again each time their file runs (a delete
by index; an entry over every item of a list written before an insertion
into it) are warnings: printed with the others, "warning:" after their
position, exit code 0; with --fail-not-idempotent they are errors.

With -f, lint also reads manifests and reports, as apply does, every file
section whose target matches none of their objects: a warning, or with
--fail-unmatched an error. It applies the files to the objects and reports
every field a file marks ${required} that an object lacks once every file
has applied (an error), every useless override: an entry that sets a
field to the value an earlier file gave it, on every object it matches (a
warning), and every overwritten file: a file whose every change is
overwritten by files that apply after it, on every object it changes, so
that the objects come out the same without it (a warning naming the later
files; a higher layer makes the file apply after them).

Files apply by layer (a "# kpatch:layer: N" line before the first header,
else 0), then from the generic target to the specific one, then in the
order given (docs/layers.md); conflicts are reported within a layer and
specificity only.

A directory gives its .kpatch, .yaml and .yml files, except values.yaml and
parameters.yaml (the values and parameters of a registry ConfigMap laid out
as a directory: pass values.yaml with --values), nor the test suites it
holds (docs/testing.md): a directory below it that holds a kpatch-test.yaml
is left out whole, and so are the directory's own kpatch-test.yaml and every
file and directory that suite names (a --registry directory too). A
replacements file (a YAML file whose only key is replacements:) is parsed and
its problems reported.

With --parameters, the schema is checked; a declared parameter that no file
reads, or a variable that reads no declared parameter, is a warning. With
--values or --set too, the values are checked against the schema, as apply
checks them, and every variable of the files against them.

With --registry, lint checks the patch files of registry ConfigMap manifests
instead, compiled as the webhook compiles them (see kpatch apply --help), and
the conflicts between them in registry order.`,
		Example: `  kpatch lint patches/
  kpatch lint -f manifests/ -R --fail-unmatched patches/
  kpatch lint --parameters parameters.yaml patches/
  kpatch lint --registry registry/`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 && len(o.registry.files) == 0 {
				return usageErrorf("expected one or more patch files or directories (or --registry FILE)")
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
	f.StringVarP(&o.output, "output", "o", "text", "output `FORMAT`: text (a line per problem) or json (every file and pair of each problem)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	o.vars.Register(f)
	o.registry.register(f)
	o.crds.register(f)
	_ = cmd.MarkFlagFilename("registry", "yaml", "yml", "json")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"kpatch", "yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return cmd
}

func (o *lintOptions) run(s streams, args []string) error {
	if o.output != "text" && o.output != "json" {
		return usageErrorf("--output must be text or json, not %q", o.output)
	}
	if err := o.registry.exclusive(len(args) > 0, &o.vars); err != nil {
		return err
	}
	if err := checkStdinOnce(args, o.manifests, o.registry.files); err != nil {
		return err
	}
	src := filesource.FromStdin(s.in)
	found := &lint.Findings{}
	run, err := o.lintRun(src, args, found)
	if err == nil && !found.Failed() {
		err = run.lint(found)
	}
	if o.output == "json" {
		if perr := found.PrintJSON(s.out); perr != nil && err == nil {
			err = perr
		}
	} else {
		found.Print(s.out)
	}
	if err != nil {
		return err
	}
	if found.Failed() {
		return errReported
	}
	return nil
}

// lintRun reads the command line into a run: the patch files (or the
// registry), the schema and the values, the manifests. Problems of the
// schema and the values go to found.
func (o *lintOptions) lintRun(src filesource.Source, args []string, found *lint.Findings) (*lintRun, error) {
	run := &lintRun{src: src, namespace: o.namespace, failUnmatched: o.failUnmatched, failNotIdempotent: o.failNotIdempotent, crds: o.crds}
	var err error
	if run.manifests, err = src.Expand(o.manifests, filesource.Manifests, o.recursive); err != nil {
		return nil, err
	}
	if len(o.registry.files) > 0 {
		files, err := src.Expand(o.registry.files, filesource.Registry, o.recursive)
		run.patches.registry = &registryFlags{files: files, selector: o.registry.selector}
		return run, err
	}
	if run.patches.files, err = src.Expand(args, filesource.Patches, o.recursive); err != nil {
		return nil, err
	}
	run.schemaFile = o.vars.Parameters
	run.patches.vars, run.schema, err = o.vars.LoadWithSchema(src, found)
	return run, err
}

// lintRun is what lint does once its command line is read. kpatch test
// runs it for each test that lints.
type lintRun struct {
	src                              filesource.Source
	patches                          patchInput // vars nil: references not checked
	schema                           *parameters.Schema
	schemaFile                       string
	manifests                        []string
	namespace                        string
	failUnmatched, failNotIdempotent bool
	crds                             crdFlag
}

// lint checks the files, compares them with the schema, if any, and
// matches their targets against the objects of the manifests, if any. An
// error is a file that could not be read.
func (r *lintRun) lint(found *lint.Findings) error {
	reg, err := r.checkPatches(found)
	if err != nil {
		return err
	}
	patches, _ := reg.PatchFiles()
	if r.schema != nil {
		refs := append(paramusage.References(paramusage.SyntaxTrees(patches)), paramusage.ExpressionReferences(patches, r.schema)...)
		paramusage.Report(r.schema, r.schemaFile, refs, found)
	}
	if len(r.manifests) == 0 {
		return nil
	}
	m, err := manifest.ReadFiles(r.manifests, r.src)
	if err != nil {
		return err
	}
	if err := r.crds.load(r.src); err != nil {
		return err
	}
	valid := &schema.Checker{CRDs: r.crds.get}
	// custom resources are typed by their CRDs, as apply types them
	opts := kpatch.ApplyOptions{Namespace: r.namespace, Schemas: valid.Schemas()}
	found.ReportUnmatched(lint.UnmatchedTargets(patches, manifest.ObjectsOf(m.Docs, r.namespace), r.failUnmatched))
	found.ReportUseless(patches, m.Objects(), opts)
	found.ReportOverwritten(patches, m.Objects(), opts)
	applied := &lint.Findings{} // the files' failures on the objects are apply's to report
	runs := applyStream(reg, m, kpatch.ApplyOptions{Namespace: r.namespace}, nil, valid, applied)
	n := len(applied.List)
	reportRequired(runs, applied)
	for i, f := range applied.List {
		// besides required values, a result the API server would refuse
		// is lint's to report (docs/format.md, What the API server accepts)
		if i >= n || errors.Is(f.Err, schema.ErrRefused) {
			found.Add(f.Err)
		}
	}
	return nil
}

// checkPatches compiles the files (or the registry) and reports, file by
// file in the order given, their problems and what Patch.Check finds in
// them, then the conflicts between the files that apply, in the order
// they apply. It returns the registry.
func (r *lintRun) checkPatches(found *lint.Findings) (*registry.Registry, error) {
	reg, err := r.patches.compile(r.src, found)
	if err != nil {
		return nil, err
	}
	for _, f := range reg.Files() {
		if f.Err != nil {
			found.Add(f.Err)
		}
		if f.File != nil {
			for _, e := range f.File.Check() {
				found.ReportCheck(e, r.failNotIdempotent)
			}
		}
	}
	// a file that builds on another (requires:) overrides it on purpose
	var intended kpatch.Intended
	if rel := reg.Relations(); rel != nil {
		intended = rel.BuildsOn
	}
	patches, keys := reg.PatchFiles()
	for _, c := range kpatch.FieldConflicts(patches, keys, intended) {
		found.Add(c)
	}
	return reg, nil
}
