package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/pkg/diff"
)

// diffOptions are the flags of kpatch diff.
type diffOptions struct {
	output        string
	namespace     string
	recursive     bool
	failUnmatched bool
}

func newDiffCommand(s streams) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff BASE TARGET",
		Short: "Print the patch file that turns the objects of BASE into those of TARGET",
		Long: `Print the smallest patch file that turns each object of BASE into the object of
TARGET with the same API group, kind, namespace and name: a .kpatch file, or with
-o yaml a YAML patch file. Scalars that changed become entries; list items are
addressed by their key (the Kubernetes patchMergeKey of a built-in kind's list,
else name, else their index); new items are inserted where they stand, items
gone are deleted; a value is written whole only where no smaller change reaches
it. BASE and TARGET are files, directories or - (standard input, once).

kpatch diff checks its own output: it applies the printed patch to BASE and
compares the result with TARGET, and prints nothing (exit 1) if they differ.
A change that a .kpatch file cannot write (an empty map or list, a list whose
items are equal) is an error that names it: -o yaml writes it.

An object only in BASE or only in TARGET cannot be patched into the other: it
is reported on stderr as a warning, or with --fail-unmatched as an error.`,
		Example: `  kpatch diff base.yaml prod.yaml > prod.kpatch
  kustomize build overlays/prod | kpatch diff -n prod base.yaml - > prod.kpatch
  kpatch diff -o yaml base/ prod/ -R > prod.yaml`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("expected BASE and TARGET, got %d arguments", len(args))
			}
			return checkStdinOnce(args)
		},
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(s, args[0], args[1]) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "kpatch", "output `FORMAT`: kpatch (a .kpatch file) or yaml (a YAML patch file)")
	f.StringVarP(&o.namespace, "namespace", "n", "", "`NAMESPACE` of the objects of BASE and TARGET without metadata.namespace; headers then name it")
	f.BoolVarP(&o.recursive, "recursive", "R", false, "read the directories of BASE and TARGET recursively")
	f.BoolVar(&o.failUnmatched, "fail-unmatched", false, "an object only in BASE or only in TARGET is an error (exit 1), not a warning")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"kpatch", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return cmd
}

func (o *diffOptions) run(s streams, basePath, targetPath string) error {
	if o.output != "kpatch" && o.output != "yaml" {
		return usageErrorf("-o must be kpatch or yaml, not %q", o.output)
	}
	base, err := o.read(s, "BASE", basePath)
	if err != nil {
		return err
	}
	target, err := o.read(s, "TARGET", targetPath)
	if err != nil {
		return err
	}
	pairs, unpaired := diff.PairObjects(base, target, o.failUnmatched)
	failed := false
	for _, u := range unpaired {
		fmt.Fprintln(s.err, u)
		failed = failed || u.Fatal
	}
	out, err := diff.Print(o.output, pairs, base, target)
	if err != nil {
		return err
	}
	if _, err := s.out.Write(out); err != nil {
		return err
	}
	if failed {
		return errReported
	}
	return nil
}

// read reads the objects of one side.
func (o *diffOptions) read(s streams, side, path string) ([]*diff.Object, error) {
	src := filesource.FromStdin(s.in)
	files, err := src.Expand([]string{path}, filesource.Manifests, o.recursive)
	if err != nil {
		return nil, err
	}
	m, err := manifest.ReadFiles(files, src)
	if err != nil {
		return nil, err
	}
	return diff.ObjectsOf(side, m.Docs, o.namespace)
}
