package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// lintOptions are the flags of kpatch lint.
type lintOptions struct {
	manifests     []string
	recursive     bool
	namespace     string
	failUnmatched bool
	vars          variableFlags
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

With -f, lint also reads manifests and reports, as apply does, every file
section whose target matches none of their objects: a warning, or with
--fail-unmatched an error.`,
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
	vars, err := o.vars.load()
	if err != nil {
		return err
	}
	if o.vars.empty() {
		vars = nil // without variables, references are not checked
	}
	files, err := expandPaths(args, patchExtensions, o.recursive)
	if err != nil {
		return err
	}
	manifestFiles, err := expandPaths(o.manifests, manifestExtensions, o.recursive)
	if err != nil {
		return err
	}
	found := false
	report := func(err error) {
		fmt.Fprintln(s.out, err)
		found = true
	}
	patches, err := checkPatches(files, s, vars, report)
	if err != nil {
		return err
	}
	if len(manifestFiles) > 0 {
		m, err := readManifests(manifestFiles, s.in)
		if err != nil {
			return err
		}
		for _, u := range unmatchedTargets(patches, objectsOf(m.docs, o.namespace), o.failUnmatched) {
			fmt.Fprintln(s.out, u)
			found = found || u.Fatal
		}
	}
	if found {
		return errReported
	}
	return nil
}

// checkPatches loads each file and reports its problems, then the
// conflicts between the files, in the order given as apply takes them. It
// returns the files that compiled.
func checkPatches(files []string, s streams, vars *kpatch.Variables, report func(error)) ([]*kpatch.Patch, error) {
	var all []*kpatch.Patch
	for _, name := range files {
		patches, err := loadPatches([]string{name}, s.in, vars, report)
		if errors.Is(err, errReported) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range patches[0].Check() {
			report(e)
		}
		all = append(all, patches[0])
	}
	for _, c := range kpatch.Conflicts(all) {
		report(c)
	}
	return all, nil
}
