package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// runLint checks patch files without objects and prints every problem
// with its position on stdout.
func runLint(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("lint", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var vf variableFlags
	vf.register(fs)
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return nil
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: expected one or more .kpatch files", errUsage)
	}
	loaded, err := vf.load()
	if err != nil {
		return err
	}
	if vf.empty() {
		loaded = nil // without variables, references are not checked
	}
	found := false
	printProblem := func(err error) {
		fmt.Fprintln(stdout, err)
		found = true
	}
	var all []*kpatch.Patch
	for _, name := range fs.Args() {
		patches, err := loadPatches([]string{name}, loaded, printProblem)
		if err == errReported {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range patches[0].Check() {
			printProblem(e)
		}
		all = append(all, patches[0])
	}
	// files in the order given, as apply takes them
	for _, c := range kpatch.Conflicts(all) {
		printProblem(c)
	}
	if found {
		return errReported
	}
	return nil
}
