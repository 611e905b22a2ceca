package cmdline

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// tree is a root with a command that takes no arguments and fails as
// fail says, and a group of commands.
func tree(fail error) *cobra.Command {
	root := &cobra.Command{Use: "tool", SilenceErrors: true, SilenceUsage: true}
	root.AddCommand(&cobra.Command{Use: "do", Args: NoArgs("; try --flag"), RunE: func(*cobra.Command, []string) error { return fail }})
	group := &cobra.Command{Use: "group"}
	group.AddCommand(&cobra.Command{Use: "one", Run: func(*cobra.Command, []string) {}})
	root.AddCommand(group)
	Setup(root)
	return root
}

func TestExecuteExitCodes(t *testing.T) {
	for _, tc := range []struct {
		fail   error
		args   []string
		code   int
		stderr string
	}{
		{nil, []string{"do"}, 0, ""},
		{ErrReported, []string{"do"}, 1, ""},
		{errors.New("boom"), []string{"do"}, 1, "tool do: boom\n"},
		{Errorf("bad %s", "input"), []string{"do"}, 2, "tool do: bad input\nRun 'tool do --help' for usage.\n"},
		{nil, []string{"do", "x"}, 2, `unexpected argument "x": tool do takes no arguments; try --flag`},
		{nil, []string{"do", "--nope"}, 2, "unknown flag: --nope"},
		{nil, []string{"dp"}, 2, `unknown command "dp" for "tool"; did you mean do?`},
		{nil, []string{"group"}, 2, "tool group: expected a command: one"},
		{nil, []string{"help", "nothing"}, 2, `unknown help topic "nothing"`},
	} {
		var stderr strings.Builder
		code := Execute(tree(tc.fail), tc.args, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) || tc.stderr == "" && stderr.Len() > 0 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.stderr)
		}
	}
}
