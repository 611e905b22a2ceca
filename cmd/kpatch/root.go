package main

import (
	"io"

	"github.com/spf13/cobra"
	"kpatch.dev/kpatch/internal/cmdline"
	"kpatch.dev/kpatch/internal/status"
)

// streams are the standard streams a command reads and writes.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// newRootCommand builds the kpatch command tree. Every mistake in the
// command line (an unknown command or flag, a missing or extra argument)
// comes out of it as a usage error (package cmdline).
func newRootCommand(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "kpatch COMMAND",
		Short: "Apply .kpatch patch files to Kubernetes manifests, offline",
		Long: `kpatch applies .kpatch files (and YAML patch files) to Kubernetes manifests,
the way the kpatch admission webhook patches objects in a cluster; it derives
the patch file between two sets of manifests, checks, formats and tests patch
files offline, and prints the objects of a cluster they would change (status).

Exit codes: 0 success, 1 a problem in the patches or the input, 2 a usage error.`,
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.AddCommand(newApplyCommand(s), newDiffCommand(s), newLintCommand(s), newFmtCommand(s), newTestCommand(s), newParamsCommand(s), newExplainCommand(s), status.NewCommand(), newVersionCommand(s))
	cmdline.SetVersion(root, currentBuild().Text())
	cmdline.Setup(root)
	return root
}
