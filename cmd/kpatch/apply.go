package main

import (
	"github.com/spf13/cobra"
	admissionv1 "k8s.io/api/admission/v1"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/internal/varflags"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/schema"
)

// applyOptions are the flags of kpatch apply.
type applyOptions struct {
	patches       []string
	inputs        []string
	recursive     bool
	output        string
	namespace     string
	failUnmatched bool
	vars          varflags.Flags
	registry      registryFlags
	request       requestFlags
	crds          crdFlag
	admission     admissionFlags
}

func newApplyCommand(s streams) *cobra.Command {
	o := &applyOptions{}
	cmd := &cobra.Command{
		Use:   "apply (-p FILE|DIR|- ... | --registry FILE|DIR ...) -f FILE|DIR|- ...",
		Short: "Apply patch files to manifests and print the result",
		Long: `Apply patch files to the objects of the manifests and print every object,
patched or not, in input order: a YAML stream, or with -o json one object or a
v1 List of them, as kubectl prints. Items of a List are patched one by one.

The YAML stream is the input as it was written wherever the patches did not
change it: comments, key order, quoting, the spelling of scalars ("010", 1.10,
on), blank lines, document separators; only the changed values, entries and
list items are written anew, in the indentation of their document. JSON input
is printed from its objects, in YAML.

Patch files apply by layer (a "# kpatch:layer: N" line before the first
header, else 0), then within a layer from the generic target to the specific
one (a file ranks by its least specific header: kind.* < kind.prefix-* <
kind.name < ns/kind.name), then in the order given (docs/layers.md); a
directory gives its .kpatch, .yaml and .yml files in lexical order, except
values.yaml and parameters.yaml (the values and parameters of a registry
ConfigMap laid out as a directory: pass values.yaml with --values), and
without the test suites it holds (docs/testing.md): a directory below it that
holds a kpatch-test.yaml is left out whole, and so are the directory's own
kpatch-test.yaml and every file and directory that suite names (a --registry
directory too). When a file fails on an object, that file leaves the object
untouched, the other files still apply, the error goes to stderr and the exit
code is 1. So does a field a file marks ${required} that no later file nor
the object sets. A file section whose target matches no object of the input
is reported on stderr as a warning, or with --fail-unmatched as an error.

A YAML patch file whose only key is replacements: holds kustomize
replacements (docs/replacements.md): they run over all the objects of the
input at once, the items of Lists included, in their turn among the other
files; the first failure leaves every object as it was.

With --registry, the patch files are those of registry ConfigMap manifests,
as applied to the cluster: the ConfigMaps that --registry-selector selects,
in the webhook's order (layer: the label kpatch.dev/layer or a file's own
line, specificity, ConfigMap name, key), each bound to its ConfigMap's
values.yaml, compiled by the webhook's own compiler. A file that does not
compile is reported as the webhook reports it (ConfigMap/key:line:column),
and nothing is printed. The registry's ConfigMaps carry their values:
--registry goes without -p, --values, --set, --set-string and --parameters.

With --admission, each object (and each item of a List) is evaluated alone,
as the webhook admits a CREATE of it, and printed as the webhook would
admit it: ${object.*} are the object's, ${namespace.*} and the values a
Namespace's annotations set (with --registry) are those of the Namespace of
the same name in the input; a replacements file reads the object itself,
its Namespace and the input's ConfigMaps labelled kpatch.dev/source=true of
the object's namespace, then of --registry-namespace; with --registry, each
object gets the files the webhook finds for it. An object without
metadata.namespace is in the namespace of -n, as kubectl apply -n sends
it; objects of kube-system and of --registry-namespace are left as they
are. A file that fails on an object, and a replacement skipped for a
missing source, are errors (the webhook's warnings; --strict denies).`,
		Example: `  kpatch apply -p patches/ -f app.yaml
  kustomize build overlays/prod | kpatch apply -p prod.kpatch -f - --values values.yaml
  kpatch apply -p patches/ -f manifests/ -R --fail-unmatched -o json
  kpatch apply -p repl.yaml -f resources.yaml
  kpatch apply --registry registry/ -f app.yaml
  kpatch apply --registry registry/ -f app.yaml --admission`,
		Args: noArgs("; patch files go with -p, manifests with -f"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.admission.validate(cmd.Flags().Changed("registry-namespace")); err != nil {
				return err
			}
			return o.run(s)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.patches, "patch", "p", nil, "patch `FILE`, directory, or - for standard input (a .kpatch file); repeatable, applied in order")
	f.StringArrayVarP(&o.inputs, "filename", "f", nil, "manifests to patch: a YAML or JSON `FILE`, a directory, or - for standard input; repeatable")
	f.BoolVarP(&o.recursive, "recursive", "R", false, "read the directories of -f and -p recursively")
	f.StringVarP(&o.output, "output", "o", "yaml", "output `FORMAT`: yaml or json")
	f.StringVarP(&o.namespace, "namespace", "n", "", "`NAMESPACE` assumed for objects without metadata.namespace when matching namespace/ targets")
	f.BoolVar(&o.failUnmatched, "fail-unmatched", false, "a file section whose target matches no object of the input is an error (exit 1), not a warning")
	o.vars.Register(f)
	o.registry.register(f)
	o.request.register(f)
	o.crds.register(f)
	o.admission.register(f)
	_ = cmd.MarkFlagFilename("registry", "yaml", "yml", "json")
	_ = cmd.MarkFlagFilename("patch", "kpatch", "yaml", "yml")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"yaml", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// validate checks the command line.
func (o *applyOptions) validate() error {
	switch {
	case len(o.patches) == 0 && len(o.registry.files) == 0:
		return usageErrorf("at least one -p FILE (or --registry FILE) is required")
	case len(o.inputs) == 0:
		return usageErrorf("-f FILE (or -f - for standard input) is required")
	case o.output != "yaml" && o.output != "json":
		return usageErrorf("-o must be yaml or json, not %q", o.output)
	}
	if err := o.registry.exclusive(len(o.patches) > 0, &o.vars); err != nil {
		return err
	}
	if _, err := o.request.request(); err != nil {
		return err
	}
	return checkStdinOnce(o.patches, o.inputs, o.registry.files)
}

func (o *applyOptions) run(s streams) error {
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
	inputFiles, err := src.Expand(o.inputs, filesource.Manifests, o.recursive)
	if err != nil {
		return err
	}
	req, _ := o.request.request() // validated
	run := applyRun{src: src, patches: *in, inputs: inputFiles, namespace: o.namespace, failUnmatched: o.failUnmatched, request: req, crds: o.crds}
	if o.admission.on {
		run.admission = &admission{registryNamespace: o.admission.registryNamespace, namespace: o.namespace, request: req}
	}
	m, applied, err := run.apply()
	found.List = append(found.List, applied.List...)
	found.Print(s.err)
	if err != nil {
		return err
	}
	if m != nil {
		if err := manifest.Write(s.out, m, o.output); err != nil {
			return err
		}
	}
	if found.Failed() {
		return errReported
	}
	return nil
}

// patchInput reads the variables and expands the patch files, or takes
// the registry; problems of the variables go to found.
func (o *applyOptions) patchInput(src filesource.Source, found *lint.Findings) (*patchInput, error) {
	if len(o.registry.files) > 0 {
		files, err := src.Expand(o.registry.files, filesource.Registry, o.recursive)
		return &patchInput{registry: &registryFlags{files: files, selector: o.registry.selector}}, err
	}
	vars, err := o.vars.Load(src, found)
	if err != nil {
		return nil, err
	}
	files, err := src.Expand(o.patches, filesource.Patches, o.recursive)
	return &patchInput{files: files, vars: vars}, err
}

// applyRun is what apply does once its command line is read: the files
// to read, the variables, the options of the engine. kpatch test runs it
// for each test.
type applyRun struct {
	src           filesource.Source
	patches       patchInput
	inputs        []string
	namespace     string
	failUnmatched bool
	// request is what conditions read as request (nil: a CREATE by an
	// unnamed user).
	request *admissionv1.AdmissionRequest
	crds    crdFlag
	// admission, if set, evaluates each object alone, as the webhook
	// admits it; nil: the input is one stream.
	admission *admission
}

// apply loads the patches and the manifests and patches every object. It
// returns the patched manifests, or nil when a patch file did not parse
// (nothing is printed then), and what it found. An error is a file that
// could not be read.
func (r *applyRun) apply() (*manifest.Set, *lint.Findings, error) {
	found := &lint.Findings{}
	reg, err := r.patches.load(r.src, found)
	if err != nil || found.Failed() {
		return nil, found, err
	}
	m, err := manifest.ReadFiles(r.inputs, r.src)
	if err != nil {
		return nil, found, err
	}
	if err := r.crds.load(r.src); err != nil {
		return nil, found, err
	}
	valid := &schema.Checker{CRDs: r.crds.get}
	if r.admission != nil {
		r.admission.valid = valid
		admitManifests(reg, m, r.admission, found)
	} else {
		runs := applyStream(reg, m, kpatch.ApplyOptions{Namespace: r.namespace}, r.request, valid, found)
		reportRequired(runs, found)
	}
	patches, _ := reg.PatchFiles()
	found.ReportUnmatched(lint.UnmatchedTargets(patches, manifest.ObjectsOf(m.Docs, r.namespace), r.failUnmatched))
	return m, found, nil
}
