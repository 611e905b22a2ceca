package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the CLI in-process in a fresh working directory holding
// files (a name may have directories: "patches/a.kpatch"), with stdin as
// standard input.
func runCLI(t *testing.T, files map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// writeFiles writes files below dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: x}\n"

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "expected a command: apply, completion, diff, explain, fmt, lint, params, status, test, version"},
		{[]string{"frobnicate"}, `unknown command "frobnicate" for "kpatch"; the commands are apply, completion, diff, explain, fmt, lint, params, status, test, version`},
		{[]string{"aply"}, "did you mean apply?"},
		{[]string{"apply"}, "at least one -p FILE (or --registry FILE) is required"},
		{[]string{"apply", "-p", "p.kpatch"}, "-f FILE (or -f - for standard input) is required"},
		{[]string{"apply", "-f", "-"}, "at least one -p FILE (or --registry FILE) is required"},
		{[]string{"apply", "-p", "p.kpatch", "-f", "-", "-o", "xml"}, `-o must be yaml or json, not "xml"`},
		{[]string{"apply", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"apply", "-p", "p.kpatch", "-f", "-", "extra"}, `unexpected argument "extra"`},
		{[]string{"apply", "-p", "-", "-f", "-"}, "standard input (-) can be read only once"},
		{[]string{"lint"}, "expected one or more patch files or directories"},
		{[]string{"lint", "-f", "-", "-"}, "standard input (-) can be read only once"},
		{[]string{"lint", "--fail-unmatched=maybe", "p.kpatch"}, "invalid argument"},
		{[]string{"fmt"}, "expected one or more .kpatch files"},
		{[]string{"fmt", "-w", "-"}, "-w cannot rewrite standard input"},
		{[]string{"version", "now"}, `unexpected argument "now"`},
		{[]string{"version", "-o", "xml"}, `-o must be json or absent, not "xml"`},
		{[]string{"completion"}, "expected a command: bash, fish, powershell, zsh"},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh" for "kpatch completion"; the commands are bash, fish, powershell, zsh` + "\n"},
		{[]string{"completion", "bsh"}, `unknown command "bsh" for "kpatch completion"; did you mean bash or zsh?`},
		{[]string{"lnt"}, `unknown command "lnt" for "kpatch"; did you mean lint?`},
		{[]string{"help", "frobnicate"}, `unknown help topic "frobnicate"`},
	} {
		code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, cm, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("kpatch %v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
		if !strings.Contains(stderr, "--help' for usage.") {
			t.Errorf("kpatch %v: stderr does not say where help is: %q", tc.args, stderr)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"apply", "-h"}, {"help", "fmt"}, {"help", "completion", "bash"}} {
		code, stdout, stderr := runCLI(t, nil, "", args...)
		if code != 0 || !strings.Contains(stdout, "Usage:") || stderr != "" {
			t.Errorf("kpatch %v: exit %d, stderr %q, stdout:\n%s", args, code, stderr, stdout)
		}
	}
}

func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "__start_kpatch",
		"zsh":  "#compdef kpatch",
		"fish": "complete -c kpatch",
	} {
		code, stdout, stderr := runCLI(t, nil, "", "completion", shell)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("completion %s: exit %d, stderr %q, output lacks %q", shell, code, stderr, want)
		}
	}
	// the shells ask the binary itself for flag values
	code, stdout, _ := runCLI(t, nil, "", "__complete", "apply", "-o", "")
	if code != 0 || !strings.Contains(stdout, "yaml\njson\n") {
		t.Errorf("completing -o: exit %d, stdout:\n%s", code, stdout)
	}
}

func TestFmtErrorsNameTheCommand(t *testing.T) {
	files := map[string]string{"reg/a.kpatch": "[configmap.c]\ndata.a: y\n", "x.yaml": "- target: configmap.c\n"}
	for args, want := range map[string]string{
		"reg":       "kpatch fmt: reg: is a directory; fmt takes .kpatch files (kpatch fmt reg/*.kpatch)\n",
		"x.yaml":    "kpatch fmt: x.yaml: fmt formats .kpatch files; YAML patch files are left to YAML tools\n",
		"no.kpatch": "kpatch fmt: no.kpatch: no such file or directory\n",
	} {
		code, stdout, stderr := runCLI(t, files, "", "fmt", args)
		if code != 1 || stdout != "" || stderr != want {
			t.Errorf("fmt %s: exit %d, stdout %q, stderr %q; want %q", args, code, stdout, stderr, want)
		}
	}
}

func TestMissingFile(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, "", "apply", "-p", "p.kpatch", "-f", "app.yaml")
	if code != 1 || stdout != "" || stderr != "kpatch apply: app.yaml: no such file or directory\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
