package main

import (
	"github.com/spf13/cobra"
	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/testsuite"
)

// testFlags are the flags of kpatch test.
type testFlags struct {
	update bool
}

func newTestCommand(s streams) *cobra.Command {
	o := &testFlags{}
	cmd := &cobra.Command{
		Use:   "test [DIR|FILE...]",
		Short: "Run the test suites (kpatch-test.yaml) of a registry",
		Long: `Run test suites written next to a registry: every file named kpatch-test.yaml in
each DIR (the current directory by default) and below, and every suite FILE
named explicitly. A suite names patch files, values and input resources, and for
each test the objects that apply must print, or the errors and warnings it must
report; a test with lint: true checks the patch files as kpatch lint does.
docs/testing.md describes the format.

Each test prints one line, PASS or FAIL and its name; a failure is followed by
what went wrong and a unified diff of the objects (as YAML, keys sorted). The
last line counts the tests: "N passed, N failed". The exit code is 1 if any
test failed or a suite could not be read.

With --update, each test's expected file is rewritten from the output, as apply
prints it; expected errors and warnings are kept as written.`,
		Example: `  kpatch test                 # every kpatch-test.yaml below the current directory
  kpatch test registry/tests
  kpatch test --update registry/tests/kpatch-test.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(s, args) },
	}
	cmd.Flags().BoolVar(&o.update, "update", false, "rewrite the expected file of each test from its output")
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	return cmd
}

func (o *testFlags) run(s streams, args []string) error {
	if len(args) == 0 {
		args = []string{"."}
	}
	for _, a := range args {
		if a == filesource.StdinName {
			return usageErrorf("test reads suites from files, not standard input")
		}
	}
	files, err := testsuite.Find(args)
	if err != nil {
		return err
	}
	if testsuite.RunFiles(s.out, files, o.update, suiteRunner) > 0 {
		return errReported
	}
	return nil
}
