// Command kpatch applies .kpatch files to Kubernetes manifests offline, the
// way the kpatch admission webhook applies them in a cluster, derives the
// patch between two sets of manifests, checks patch files without objects,
// formats them, runs their test suites (kpatch-test.yaml), prints their
// parameter schemas and, reading a cluster, its drift (status).
//
//	kpatch apply -p FILE|DIR|- ... -f FILE|DIR|- ... [-R] [--parameters FILE] [--values FILE] [--set ...] [-o yaml|json] [--fail-unmatched]
//	kpatch apply --registry FILE|DIR ... [--registry-selector SELECTOR] -f FILE|DIR|- ...
//	kpatch diff [-o kpatch|yaml] [-n NAMESPACE] [-R] [--fail-unmatched] BASE TARGET
//	kpatch lint [-f FILE|DIR|- ...] [--fail-not-idempotent] [--parameters FILE] [--values FILE] [--set ...] FILE|DIR...
//	kpatch lint --registry FILE|DIR ... [-f FILE|DIR|- ...]
//	kpatch params [--parameters FILE] FILE|DIR...
//	kpatch fmt [-w] [-d] FILE...
//	kpatch test [--update] [DIR|FILE...]
//	kpatch status [-n NAMESPACE | -A] [--scan] [-o json|yaml]
//	kpatch version
//	kpatch completion bash|zsh|fish|powershell
//
// Exit codes: 0 success, 1 a problem in the patches or the input (reported
// on stderr, or by lint on stdout), 2 a usage error. docs/cli holds the
// reference of every command, generated from the commands themselves.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
