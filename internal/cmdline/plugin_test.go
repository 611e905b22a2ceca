package cmdline

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestPluginCommand(t *testing.T) {
	for _, tc := range []struct {
		program, want string
	}{
		{"/usr/local/bin/kubectl-kpatch", "kubectl kpatch"},
		{"kubectl-kpatch.exe", "kubectl kpatch"},
		{"/home/me/.krew/bin/kubectl-kpatch", "kubectl kpatch"},
		{"kubectl-foo-bar", "kubectl foo bar"},
		{"kubectl-foo_bar", "kubectl foo-bar"},
		{"kpatch", ""},
		{"/usr/bin/kpatch", ""},
		{"kubectl-", ""},
		{"/tmp/go-build/kpatch.test", ""},
		{"/opt/kubectl-tools/kpatch", ""}, // a directory's name is not the program's
	} {
		got, ok := PluginCommand(tc.program)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("PluginCommand(%q) = %q, %v; want %q", tc.program, got, ok, tc.want)
		}
	}
}

// TestInvokedAs: run as kubectl-tool, the usage line, the help, the
// errors and the examples say `kubectl tool`; under its own name nothing
// changes.
func TestInvokedAs(t *testing.T) {
	build := func(program string) *cobra.Command {
		root := tree(nil)
		do, _, _ := root.Find([]string{"do"})
		do.Example = "  tool do\n  # tool do runs\n  tooling do"
		InvokedAs(root, program)
		return root
	}
	root := build("/bin/kubectl-tool")
	do, _, _ := root.Find([]string{"do"})
	if got := do.UseLine(); got != "kubectl tool do" {
		t.Errorf("usage line %q", got)
	}
	if got := do.Example; got != "  kubectl tool do\n  # tool do runs\n  tooling do" {
		t.Errorf("example %q", got)
	}
	var stderr strings.Builder
	if code := Execute(root, []string{"do", "x"}, &stderr); code != 2 || !strings.HasPrefix(stderr.String(), "kubectl tool do: ") || !strings.Contains(stderr.String(), "Run 'kubectl tool do --help'") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	var help strings.Builder
	root = build("/bin/kubectl-tool")
	root.SetOut(&help)
	if code := Execute(root, []string{"--help"}, &stderr); code != 0 || !strings.Contains(help.String(), "kubectl tool [command]") {
		t.Errorf("--help: exit %d:\n%s", code, help.String())
	}
	root = build("/bin/tool")
	do, _, _ = root.Find([]string{"do"})
	if do.UseLine() != "tool do" || do.Example != "  tool do\n  # tool do runs\n  tooling do" {
		t.Errorf("under its own name: %q, %q", do.UseLine(), do.Example)
	}
}

// TestSetVersion: --version prints the text as it is, exit 0; the flag is
// the root's alone and has no shorthand.
func TestSetVersion(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
	}{
		{[]string{"--version"}, 0, "Version: 1.2\n{{.Weird}}\n"},
		{[]string{"-v"}, 2, ""},
		{[]string{"do", "--version"}, 2, ""},
	} {
		root := tree(nil)
		SetVersion(root, "Version: 1.2\n{{.Weird}}\n")
		var out, stderr strings.Builder
		root.SetOut(&out)
		if code := Execute(root, tc.args, &stderr); code != tc.code || out.String() != tc.stdout {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), stderr.String())
		}
	}
}
