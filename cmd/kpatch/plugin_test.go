package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildAs builds the CLI into dir under name, as a user installs it.
func buildAs(t *testing.T, dir, name string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestHelpAsKubectlPlugin runs the binary installed as kubectl-kpatch, as
// kubectl runs a plugin: its usage, help, examples and errors name the
// command the user typed, `kubectl kpatch`; installed as kpatch, `kpatch`.
func TestHelpAsKubectlPlugin(t *testing.T) {
	dir := t.TempDir()
	plugin := buildAs(t, dir, "kubectl-kpatch")
	run := func(bin string, args ...string) (stdout, stderr string) {
		cmd := exec.Command(bin, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		_ = cmd.Run()
		return out.String(), errb.String()
	}
	help, _ := run(plugin, "--help")
	for _, want := range []string{"Usage:\n  kubectl kpatch COMMAND [flags]\n", "help for kubectl kpatch\n", `Use "kubectl kpatch [command] --help"`} {
		if !strings.Contains(help, want) {
			t.Errorf("kubectl-kpatch --help lacks %q:\n%s", want, help)
		}
	}
	help, _ = run(plugin, "apply", "--help")
	for _, want := range []string{"Usage:\n  kubectl kpatch apply (-p FILE", "\n  kubectl kpatch apply --registry registry/ -f app.yaml\n"} {
		if !strings.Contains(help, want) {
			t.Errorf("kubectl-kpatch apply --help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "\n  kpatch ") {
		t.Errorf("kubectl-kpatch apply --help shows a line running kpatch alone:\n%s", help)
	}
	if _, stderr := run(plugin, "apply"); !strings.HasPrefix(stderr, "kubectl kpatch apply: ") || !strings.Contains(stderr, "Run 'kubectl kpatch apply --help' for usage.") {
		t.Errorf("kubectl-kpatch apply: stderr %q", stderr)
	}
	// the same executable under its own name
	kpatch := filepath.Join(dir, "kpatch")
	if err := os.Link(plugin, kpatch); err != nil {
		t.Fatal(err)
	}
	if help, _ = run(kpatch, "apply", "--help"); strings.Contains(help, "kubectl kpatch") || !strings.Contains(help, "\n  kpatch apply --registry registry/ -f app.yaml\n") {
		t.Errorf("kpatch apply --help:\n%s", help)
	}
}

// TestKubectlCompletionShim runs kubectl_complete-kpatch as kubectl (1.26
// and later) runs it to complete `kubectl kpatch ...`: found on the PATH
// beside kubectl-kpatch, given the words after `kubectl kpatch`, the last
// one the word being completed; it prints the candidates, then the
// directive as `:N`.
func TestKubectlCompletionShim(t *testing.T) {
	dir := t.TempDir()
	buildAs(t, dir, "kubectl-kpatch")
	src, err := os.ReadFile("kubectl_complete-kpatch")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kubectl_complete-kpatch"), src, 0o755); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) []string {
		t.Helper()
		cmd := exec.Command(filepath.Join(dir, "kubectl_complete-kpatch"), words...)
		cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+"/usr/bin:/bin")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kubectl_complete-kpatch %q: %v", words, err)
		}
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, ":") {
			t.Fatalf("kubectl_complete-kpatch %q: last line %q, want :DIRECTIVE", words, last)
		}
		return lines
	}
	names := func(lines []string) string {
		var out []string
		for _, l := range lines[:len(lines)-1] {
			out = append(out, strings.SplitN(l, "\t", 2)[0])
		}
		return strings.Join(out, " ")
	}
	if got := names(complete("")); !strings.Contains(got, "apply") || !strings.Contains(got, "lint") || !strings.Contains(got, "version") {
		t.Errorf("commands: %q", got)
	}
	if got := names(complete("apply", "--reg")); got != "--registry --registry-namespace --registry-selector" {
		t.Errorf("apply --reg: %q", got)
	}
	if got := complete("version", "-o", ""); names(got) != "json" || got[len(got)-1] != ":4" {
		t.Errorf("version -o: %q", got)
	}
}
