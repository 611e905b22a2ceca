package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// streams are the standard streams a command reads and writes.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// newRootCommand builds the kpatch command tree. Every mistake in the
// command line (an unknown command or flag, a missing or extra argument)
// comes out of it as a *usageError.
func newRootCommand(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "kpatch COMMAND",
		Short: "Apply .kpatch patch files to Kubernetes manifests, offline",
		Long: `kpatch applies .kpatch files (and YAML patch files) to Kubernetes manifests,
the way the kpatch admission webhook patches objects in a cluster; it derives
the patch file between two sets of manifests, checks patch files without
objects, prints them in their canonical layout and runs their test suites.

Exit codes: 0 success, 1 a problem in the patches or the input, 2 a usage error.`,
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return asUsageError(err) })
	root.AddCommand(newApplyCommand(s), newDiffCommand(s), newLintCommand(s), newFmtCommand(s), newTestCommand(s), newParamsCommand(s), newExplainCommand(s), newVersionCommand(s))
	root.SetHelpCommand(newHelpCommand())
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	markUsageErrors(root)
	return root
}

// markUsageErrors walks the tree: a command that only groups others (the
// root, completion) fails with a usage error when it is run alone or with
// an unknown subcommand, instead of printing its help and exiting 0; the
// argument checks of every command return usage errors.
func markUsageErrors(cmd *cobra.Command) {
	if !cmd.Runnable() && cmd.HasSubCommands() {
		cmd.Args = unknownSubcommand
		cmd.RunE = missingSubcommand
		cmd.SuggestionsMinimumDistance = 1
	}
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error { return asUsageError(check(c, args)) }
	}
	for _, sub := range cmd.Commands() {
		markUsageErrors(sub)
	}
}

// unknownSubcommand rejects any argument of a command that only groups
// others, with the names that come close to it.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	hint := "; the commands are " + strings.Join(availableCommands(cmd), ", ")
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		hint = "; did you mean " + s[len(s)-1] + "?"
		if len(s) > 1 {
			hint = "; did you mean " + strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1] + "?"
		}
	}
	return usageErrorf("unknown command %q for %q%s", args[0], cmd.CommandPath(), hint)
}

// availableCommands lists the names of the subcommands a user may run.
func availableCommands(cmd *cobra.Command) []string {
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return names
}

// missingSubcommand is the run of a command that only groups others.
func missingSubcommand(cmd *cobra.Command, _ []string) error {
	return usageErrorf("expected a command: %s", strings.Join(availableCommands(cmd), ", "))
}

// noArgs rejects the arguments of a command that takes none; hint, if
// any, says what the user may have meant.
func noArgs(hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		return usageErrorf("unexpected argument %q: %s takes no arguments%s", args[0], cmd.CommandPath(), hint)
	}
}

// newHelpCommand is cobra's help command, except that an unknown topic is
// a usage error rather than a message and exit code 0.
func newHelpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "Help about any command",
		Long:  "Help provides help for any command of kpatch.",
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return usageErrorf("unknown help topic %q", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	}
}
