package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"kpatch.dev/kpatch/internal/filesource"
)

// errReported marks a failure whose problems were already printed: exit
// code 1 with nothing more to say.
var errReported = errors.New("problems reported")

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErrorf formats a usage error.
func usageErrorf(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// asUsageError marks err, if any, as a mistake in the command line.
func asUsageError(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err: err}
}

// run executes one command line and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCommand(streams{in: stdin, out: stdout, err: stderr})
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	return exitCode(cmd, err, stderr)
}

// exitCode reports err on stderr, unless it was reported already, and
// returns the exit code it stands for.
func exitCode(cmd *cobra.Command, err error, stderr io.Writer) int {
	var usage *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errReported):
		return 1
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", cmd.CommandPath(), err, cmd.CommandPath())
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
		return 1
	}
}

// orReported returns err, or errReported when err is nil: problems
// found (and printed) fail the command with exit code 1.
func orReported(err error) error {
	if err != nil {
		return err
	}
	return errReported
}

// checkStdinOnce fails with a usage error when "-" is named more than
// once (filesource.StdinOnce).
func checkStdinOnce(lists ...[]string) error {
	return asUsageError(filesource.StdinOnce(lists...))
}
