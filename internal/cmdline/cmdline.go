// Package cmdline makes a cobra command tree treat every mistake in the
// command line as a usage error, exit code 2: an unknown command, flag
// or help topic, a missing or extra argument, a command that only groups
// others run alone. Exit code 1 is for the problems a command finds, 0
// for success.
package cmdline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// ErrReported marks a failure whose problems were already printed: exit
// code 1 with nothing more to say.
var ErrReported = errors.New("problems reported")

// UsageError is a mistake in the command line: exit code 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Errorf formats a usage error.
func Errorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// AsUsageError marks err, if any, as a mistake in the command line.
func AsUsageError(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}

// OrReported returns err, or ErrReported when err is nil: problems found
// (and printed) fail the command with exit code 1.
func OrReported(err error) error {
	if err != nil {
		return err
	}
	return ErrReported
}

// Execute runs root with args and returns the exit code; it reports the
// error, if any, on stderr, unless it was reported already.
func Execute(root *cobra.Command, args []string, stderr io.Writer) int {
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	var usage *UsageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrReported):
		return 1
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", cmd.CommandPath(), err, cmd.CommandPath())
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
		return 1
	}
}

// Setup makes the tree of root report usage errors: flag errors, the
// argument checks of every command, a command that only groups others
// (the root, completion) run alone or with an unknown subcommand, which
// would print its help and exit 0, and an unknown help topic. Run as a
// kubectl plugin (os.Args[0] kubectl-NAME), the tree is named as kubectl
// runs it (InvokedAs).
func Setup(root *cobra.Command) {
	InvokedAs(root, os.Args[0])
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return AsUsageError(err) })
	root.SetHelpCommand(newHelpCommand(root.Name()))
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	markUsageErrors(root)
}

// markUsageErrors walks the tree: a command that only groups others fails
// with a usage error when it is run alone or with an unknown subcommand;
// the argument checks of every command return usage errors.
func markUsageErrors(cmd *cobra.Command) {
	if !cmd.Runnable() && cmd.HasSubCommands() {
		cmd.Args = unknownSubcommand
		cmd.RunE = missingSubcommand
		cmd.SuggestionsMinimumDistance = 1
	}
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error { return AsUsageError(check(c, args)) }
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
	return Errorf("unknown command %q for %q%s", args[0], cmd.CommandPath(), hint)
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
	return Errorf("expected a command: %s", strings.Join(availableCommands(cmd), ", "))
}

// NoArgs rejects the arguments of a command that takes none; hint, if
// any, says what the user may have meant.
func NoArgs(hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		return Errorf("unexpected argument %q: %s takes no arguments%s", args[0], cmd.CommandPath(), hint)
	}
}

// newHelpCommand is cobra's help command, except that an unknown topic is
// a usage error rather than a message and exit code 0.
func newHelpCommand(program string) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "Help about any command",
		Long:  "Help provides help for any command of " + program + ".",
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return availableCommands(cmd), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return Errorf("unknown help topic %q", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	}
}
