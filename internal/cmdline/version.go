package cmdline

import "github.com/spf13/cobra"

// SetVersion gives root a --version flag (no shorthand) that prints text,
// as it is, and exits 0: the same text the program's version command
// prints, so that `kpatch --version` and `kpatch version` agree.
func SetVersion(root *cobra.Command, text string) {
	root.Version = text
	root.SetVersionTemplate("{{.Version}}")
	root.Flags().Bool("version", false, "print the version, as the version command does")
}
