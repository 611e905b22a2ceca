package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aymanbagabas/go-udiff"
	"github.com/spf13/cobra"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/kpatchfmt"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// fmtOptions are the flags of kpatch fmt.
type fmtOptions struct {
	write bool
	diff  bool
}

func newFmtCommand(s streams) *cobra.Command {
	o := &fmtOptions{}
	cmd := &cobra.Command{
		Use:   "fmt [-w] [-d] FILE|-...",
		Short: "Print .kpatch files in their canonical layout",
		Long: `Print .kpatch files in their canonical layout: one header a section, one entry a
line, a blank line between sections, no indentation, paths and values spelled
as the printer of the engine spells them; a selector stays bare
(containers.name=main) or bracketed (containers[name=main]) as written, its
value quoted only where it needs quotes. Comments are kept: a comment line
stays above the header or entry it was above, an inline comment stays on its
line. Formatting never changes what a file means: fmt refuses a file whose
formatted text would not parse back to the same patches.

Without flags, the formatted files go to stdout. With -w, each file that is
not formatted is rewritten in place. With -d, a unified diff of each file that
is not formatted goes to stdout and the exit code is 1 (for CI); -d -w prints
the diff and rewrites the files. A file that does not parse is reported on
stderr with every problem's position, and the exit code is 1. "-" reads standard input. YAML patch files are not formatted.`,
		Example: `  kpatch fmt -w patches/*.kpatch
  kpatch fmt -d patches/*.kpatch   # in CI: exit 1 and a diff if a file is not formatted`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("expected one or more .kpatch files")
			}
			return checkStdinOnce(args)
		},
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(s, args) },
	}
	cmd.Flags().BoolVarP(&o.write, "write", "w", false, "rewrite each file that is not formatted in place")
	cmd.Flags().BoolVarP(&o.diff, "diff", "d", false, "print a unified diff of each file that is not formatted and exit 1")
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"kpatch"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return cmd
}

func (o *fmtOptions) run(s streams, files []string) error {
	if o.write {
		for _, f := range files {
			if f == filesource.StdinName {
				return usageErrorf("-w cannot rewrite standard input")
			}
		}
	}
	failed := false
	for _, path := range files {
		unformatted, err := o.format(s, path)
		var list kpatch.ErrorList
		switch {
		case errors.As(err, &list):
			for _, e := range list {
				fmt.Fprintln(s.err, e)
			}
			failed = true
		case err != nil:
			fmt.Fprintf(s.err, "kpatch fmt: %v\n", err)
			failed = true
		case unformatted && o.diff:
			failed = true
		}
	}
	if failed {
		return errReported
	}
	return nil
}

// format formats one file and reports whether it was not formatted.
func (o *fmtOptions) format(s streams, path string) (bool, error) {
	if kpatch.IsYAMLFile(path) {
		return false, fmt.Errorf("%s: fmt formats .kpatch files; YAML patch files are left to YAML tools", path)
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return false, fmt.Errorf("%s: is a directory; fmt takes .kpatch files (kpatch fmt %s)", path, filepath.Join(path, "*.kpatch"))
	}
	name, src, err := filesource.ReadPath(path, s.in)
	if err != nil {
		return false, err
	}
	out, err := kpatchfmt.Format(name, src)
	if err != nil {
		return false, err
	}
	unformatted := !bytes.Equal(src, out)
	if o.diff && unformatted {
		if _, err := fmt.Fprint(s.out, udiff.Unified(name, name, string(src), string(out))); err != nil {
			return true, err
		}
	}
	if o.write && unformatted {
		return true, filesource.WriteKeepMode(path, out)
	}
	if !o.diff && !o.write {
		_, err = s.out.Write(out)
	}
	return unformatted, err
}
