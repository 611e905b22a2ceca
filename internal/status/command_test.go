package status

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"kpatch.dev/kpatch/internal/cmdline"
)

// runStatus runs kpatch status with args, with $KUBECONFIG and $HOME set
// to an empty directory, and returns its exit code and error output.
func runStatus(t *testing.T, args ...string) (int, string) {
	t.Helper()
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	root := &cobra.Command{Use: "kpatch", SilenceErrors: true, SilenceUsage: true}
	root.AddCommand(NewCommand())
	cmdline.Setup(root)
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	code := cmdline.Execute(root, append([]string{"status"}, args...), &errOut)
	return code, errOut.String()
}

// TestStatusFlags: flags that do not go together are usage errors (exit
// 2); without a kubeconfig, the error says where kubectl finds one.
func TestStatusFlags(t *testing.T) {
	badKubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(badKubeconfig, []byte("apiVersion: v1\nkind: Config\ncurrent-context: gone\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-o", "table"}, 2, `-o must be json, yaml or absent, not "table"`},
		{[]string{"-n", "shop", "-A"}, 2, "give either -n NAMESPACE or -A, not both"},
		{[]string{"--scan", "-A"}, 2, "--scan scans one namespace: give -n NAMESPACE, not -A"},
		{[]string{"--registry-namespace", "kpatch"}, 2, "--registry-namespace and --registry-selector go with --scan"},
		{[]string{"shop"}, 2, "shop"},
		{nil, 1, "no kubeconfig: give --kubeconfig FILE, set $KUBECONFIG or write ~/.kube/config"},
		{[]string{"--kubeconfig", badKubeconfig}, 1, `reading the kubeconfig: `},
		{[]string{"--kubeconfig", badKubeconfig, "--scan", "--registry-selector", "a b"}, 1, "reading the kubeconfig: "},
	} {
		code, stderr := runStatus(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("status %q: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
