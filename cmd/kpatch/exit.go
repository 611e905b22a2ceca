package main

import (
	"io"

	"kpatch.dev/kpatch/internal/cmdline"
	"kpatch.dev/kpatch/internal/filesource"
)

// errReported marks a failure whose problems were already printed: exit
// code 1 with nothing more to say.
var errReported = cmdline.ErrReported

// noArgs rejects the arguments of a command that takes none (cmdline.NoArgs).
var noArgs = cmdline.NoArgs

// usageErrorf formats a mistake in the command line: exit code 2.
func usageErrorf(format string, args ...any) error { return cmdline.Errorf(format, args...) }

// asUsageError marks err, if any, as a mistake in the command line.
func asUsageError(err error) error { return cmdline.AsUsageError(err) }

// orReported returns err, or errReported when err is nil.
func orReported(err error) error { return cmdline.OrReported(err) }

// run executes one command line and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cmdline.Execute(newRootCommand(streams{in: stdin, out: stdout, err: stderr}), args, stderr)
}

// checkStdinOnce fails with a usage error when "-" is named more than
// once (filesource.StdinOnce).
func checkStdinOnce(lists ...[]string) error {
	return asUsageError(filesource.StdinOnce(lists...))
}
