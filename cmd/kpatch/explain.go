package main

import (
	"github.com/spf13/cobra"

	"kpatch.dev/kpatch/internal/explain"
	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/schema"
)

// explainOptions are the flags of kpatch explain: those of apply that say
// which files apply to which objects, and the output format.
type explainOptions struct {
	applyOptions
}

func newExplainCommand(s streams) *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain (-p FILE|DIR|- ... | --registry FILE|DIR ...) -f FILE|DIR|- ...",
		Short: "Explain, object by object, what each patch file did",
		Long: `Explain prints, for each object of the manifests (the items of Lists one by
one, in input order), every patch file in the order the files apply and what
it did to the object:

  patched    the file changed the object: each field (or list item) it
             added (+), replaced (~, old -> new) or removed (-), by its
             kpatch path from the object's root, in document order
  unchanged  a section's target matches the object, and the file changed
             nothing (every value was already there)
  failed     the file failed on the object and left it as it was: the
             errors, at file:line:column
  unmatched  no section's target matches the object
  disabled   the file's enabled: metadata is false: it applies to no
             object; why follows, as "enabled: ${features.x} is false"

After the files, "required and not set" lists each field a file that
applied marks ${required} and that the object does not hold once every
file has applied, with where the file requires it.

The files apply exactly as kpatch apply applies them: one at a time, each to
the result of the ones before, by layer, then specificity, then in the order
given with -p (a directory gives its files in lexical order), or with
--registry in registry order (layer, specificity, ConfigMap name, key). The
number before a file is its position in that order; the brackets give its
layer and specificity (docs/layers.md).
The output is text, or with -o json or -o yaml the structure that
docs/explain.md describes.

explain is a diagnostic: a file that fails on an object is part of the
explanation, and the exit code is 0. It is 1 when the input cannot be read
or a patch file does not compile (reported on stderr, nothing printed), and
2 for a usage error.`,
		Example: `  kpatch explain -p patches/ -f app.yaml
  kpatch explain --registry registry/ -f app.yaml -o yaml
  kustomize build overlays/prod | kpatch explain -p prod.kpatch -f - --values values.yaml -o json`,
		Args: noArgs("; patch files go with -p, manifests with -f"),
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(s) },
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.patches, "patch", "p", nil, "patch `FILE`, directory, or - for standard input (a .kpatch file); repeatable, applied in order")
	f.StringArrayVarP(&o.inputs, "filename", "f", nil, "manifests to explain: a YAML or JSON `FILE`, a directory, or - for standard input; repeatable")
	f.BoolVarP(&o.recursive, "recursive", "R", false, "read the directories of -f and -p recursively")
	f.StringVarP(&o.output, "output", "o", "text", "output `FORMAT`: text, json or yaml")
	f.StringVarP(&o.namespace, "namespace", "n", "", "`NAMESPACE` assumed for objects without metadata.namespace when matching namespace/ targets")
	o.vars.Register(f)
	o.registry.register(f)
	o.request.register(f)
	o.crds.register(f)
	_ = cmd.MarkFlagFilename("registry", "yaml", "yml", "json")
	_ = cmd.MarkFlagFilename("patch", "kpatch", "yaml", "yml")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// validate checks the command line.
func (o *explainOptions) validate() error {
	if o.output != "text" && o.output != "json" && o.output != "yaml" {
		return usageErrorf("-o must be text, json or yaml, not %q", o.output)
	}
	format := o.output
	o.output = "yaml" // what apply's checks accept
	defer func() { o.output = format }()
	return o.applyOptions.validate()
}

func (o *explainOptions) run(s streams) error {
	if err := o.validate(); err != nil {
		return err
	}
	src := filesource.FromStdin(s.in)
	found := &lint.Findings{}
	in, err := o.patchInput(src, found)
	if err != nil || found.Failed() {
		found.Print(s.err)
		return orReported(err)
	}
	reg, err := in.load(src, found)
	found.Print(s.err)
	if err != nil || found.Failed() {
		return orReported(err)
	}
	inputFiles, err := src.Expand(o.inputs, filesource.Manifests, o.recursive)
	if err != nil {
		return err
	}
	m, err := manifest.ReadFiles(inputFiles, src)
	if err != nil {
		return err
	}
	if err := o.crds.load(src); err != nil {
		return err
	}
	report := &explain.Report{}
	req, _ := o.request.request() // validated
	valid := &schema.Checker{CRDs: o.crds.get}
	report.Objects = append(report.Objects, newTracer(m.Docs, kpatch.ApplyOptions{Namespace: o.namespace}, req, valid).trace(reg)...)
	return explain.Write(s.out, report, o.output)
}
