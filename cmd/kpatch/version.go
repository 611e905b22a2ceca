package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"kpatch.dev/kpatch/internal/buildinfo"
)

// currentBuild returns the version and commit the binary was built from
// (see package buildinfo); a variable so that tests can give their own.
var currentBuild = buildinfo.Current

func newVersionCommand(s streams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of kpatch",
		Long: `Print the version of kpatch, the commit it was built from (with
"(modified)" when the work tree had uncommitted changes), the Go version and
the platform. A release build names its release version; ` + "`go install`" + ` names
the module version.`,
		Args: noArgs(""),
		RunE: func(*cobra.Command, []string) error {
			b := currentBuild()
			switch output {
			case "":
				_, err := fmt.Fprint(s.out, b.Text())
				return err
			case "json":
				out, err := json.MarshalIndent(b, "", "    ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(s.out, "%s\n", out)
				return err
			default:
				return usageErrorf("-o must be json or absent, not %q", output)
			}
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output `FORMAT`: json; text when absent")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
