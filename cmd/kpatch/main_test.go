package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the CLI in-process with files written to a fresh directory.
func runCLI(t *testing.T, files map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range args {
		if _, ok := files[a]; ok {
			args[i] = filepath.Join(dir, a)
		}
	}
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: x}\n"

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		nil, {"frobnicate"}, {"apply"}, {"apply", "-p", "p.kpatch"}, {"apply", "-f", "-"},
		{"apply", "-p", "p.kpatch", "-f", "-", "-o", "xml"}, {"apply", "--bogus"}, {"lint"},
	} {
		code, _, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, cm, args...)
		if code != 2 || stderr == "" {
			t.Errorf("kpatch %v: exit %d, stderr %q; want 2 and a message", args, code, stderr)
		}
	}
}

func TestApplyFromStdinAsJSON(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\ndata.n: 3\n"},
		cm+"---\n"+strings.Replace(cm, "name: c", "name: d", 1), "apply", "-p", "p.kpatch", "-f", "-", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	var objs []map[string]any
	for dec.More() {
		var o map[string]any
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("output is not a JSON stream: %v\n%s", err, stdout)
		}
		objs = append(objs, o)
	}
	if len(objs) != 2 {
		t.Fatalf("want 2 objects, got %d", len(objs))
	}
	if d := objs[0]["data"].(map[string]any); d["a"] != "y" || d["n"] != "3" {
		t.Errorf("first object not patched: %v", d)
	}
	if d := objs[1]["data"].(map[string]any); d["a"] != "x" {
		t.Errorf("second object patched: %v", d)
	}
}

func TestApplyListItems(t *testing.T) {
	list := "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSpace(cm), "\n", "\n  ") + "\n"
	code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, list, "apply", "-p", "p.kpatch", "-f", "-")
	if code != 0 || !strings.Contains(stdout, "a: \"y\"") && !strings.Contains(stdout, "a: y") {
		t.Errorf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
}

func TestParseErrorPrintsNothing(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"bad.kpatch": "[configmap.c]\nno separator\nx: [1]\n", "ok.kpatch": "[configmap.c]\ndata.a: y\n"},
		cm, "apply", "-p", "ok.kpatch", "-p", "bad.kpatch", "-f", "-")
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing", code, stdout)
	}
	if !strings.Contains(stderr, "bad.kpatch:2:1: ") || !strings.Contains(stderr, "bad.kpatch:3:4: ") {
		t.Errorf("stderr lacks both positions:\n%s", stderr)
	}
}

func TestVariablesFlags(t *testing.T) {
	files := map[string]string{
		"p.kpatch":    "[configmap.c]\ndata.v: ${values.v}\ndata.w: ${values.w}\n",
		"values.yaml": "values:\n  v: from-file\n  w: file\n",
	}
	code, stdout, stderr := runCLI(t, files, cm, "apply", "-p", "p.kpatch", "-f", "-", "--values", "values.yaml", "--set", "values.w=1.10", "--set-string", "values.v=1.10")
	if code != 0 || !strings.Contains(stdout, `v: "1.10"`) || !strings.Contains(stdout, `w: "1.1"`) {
		t.Errorf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	code, _, stderr = runCLI(t, files, cm, "apply", "-p", "p.kpatch", "-f", "-", "--set", "features.x=maybe")
	if code != 1 || !strings.Contains(stderr, "booleans") {
		t.Errorf("a non-boolean feature: exit %d, %s", code, stderr)
	}
}

func TestInvalidInput(t *testing.T) {
	for _, in := range []string{"- a\n- b\n", "a: [\n", "\"just text\"\n"} {
		code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, in, "apply", "-p", "p.kpatch", "-f", "-")
		if code != 1 || stdout != "" || !strings.Contains(stderr, "<stdin>: document 1") {
			t.Errorf("input %q: exit %d, stdout %q, stderr %q", in, code, stdout, stderr)
		}
	}
}

func TestLint(t *testing.T) {
	files := map[string]string{
		"good.kpatch": "[deployment.web]\nreplicas: ${values.n}\n",
		"bad.kpatch":  "[deployment.web]\nreplicsa: 3\n\n[service.s.ports.name=http]\nport: many\n",
	}
	code, stdout, _ := runCLI(t, files, "", "lint", "good.kpatch", "bad.kpatch")
	if code != 1 || !strings.Contains(stdout, "bad.kpatch:2:1: ") || !strings.Contains(stdout, "bad.kpatch:5:7: ") || strings.Contains(stdout, "good.kpatch") {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, files, "", "lint", "good.kpatch", "--set", "values.m=1")
	if code != 1 || !strings.Contains(stdout, "good.kpatch:2:11: ") || !strings.Contains(stdout, "${values.n}") {
		t.Errorf("with variables: exit %d, stdout:\n%s", code, stdout)
	}
	if code, stdout, _ = runCLI(t, files, "", "lint", "good.kpatch"); code != 0 || stdout != "" {
		t.Errorf("a good file: exit %d, stdout %q", code, stdout)
	}
}
