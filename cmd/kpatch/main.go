// Command kpatch applies .kpatch files to Kubernetes manifests offline, the
// way the kpatch admission webhook applies them in a cluster, and checks
// patch files without objects.
//
//	kpatch apply -p FILE [-p FILE ...] -f FILE|- [--set values.K=V|features.K=V ...] [--values FILE] [-o yaml|json]
//	kpatch lint [--set ...] [--values FILE] FILE...
//
// Exit codes: 0 success, 1 a patch or input problem (reported on stderr,
// or by lint on stdout), 2 a usage error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

const usage = `kpatch applies .kpatch patch files to Kubernetes manifests.

Usage:
  kpatch apply -p FILE [-p FILE ...] -f FILE|- [--set values.K=V|features.K=V ...] [--values FILE] [-o yaml|json]
  kpatch lint [--set ...] [--values FILE] FILE...

Run 'kpatch COMMAND --help' for the flags of a command.
`

// errUsage marks a mistake in the command line: exit code 2.
var errUsage = errors.New("usage")

// errReported marks a failure whose problems were already printed: exit
// code 1 with nothing more to say.
var errReported = errors.New("problems reported")

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "apply":
		err = runApply(args[1:], stdin, stdout, stderr)
	case "lint":
		err = runLint(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "kpatch: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "kpatch %s: %v\n", args[0], err)
		return 2
	case errors.Is(err, errReported):
		return 1
	default:
		fmt.Fprintf(stderr, "kpatch %s: %v\n", args[0], err)
		return 1
	}
}
