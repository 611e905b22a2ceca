package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// widget is a custom resource whose spec.size is a scalar.
const widget = "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n"

// suiteFiles are a registry laid out as a directory, with a test suite.
var suiteFiles = map[string]string{
	"registry/web.kpatch":  "[configmap.c]\ndata.a: ${values.a}\n",
	"registry/values.yaml": "values:\n  a: from-values\n",
	"registry/tests/kpatch-test.yaml": `name: web
patches: [..]
values: ../values.yaml
resources: [app.yaml]
tests:
- name: values
  expected: expected.yaml
- name: set wins
  set: [values.a=set]
  expected: [set.yaml]
- name: a file that fails on the object
  patches: [broken.kpatch]
  expectedErrors: ["broken.kpatch:2:", "Widget w: spec.size is a number"]
  expected: app.yaml
- name: lint
  lint: true
  patches: [nonidempotent.kpatch]
  expectedWarnings: [not idempotent]
`,
	"registry/tests/app.yaml":             cm + widget,
	"registry/tests/expected.yaml":        strings.Replace(cm, "a: x", "a: from-values", 1) + widget,
	"registry/tests/set.yaml":             strings.Replace(cm, "a: x", "a: set", 1) + widget,
	"registry/tests/broken.kpatch":        "[widget.w]\nspec.size.unit: x\n",
	"registry/tests/nonidempotent.kpatch": "[deployment.web]\ncontainers.name=main.args[delete=0]:\n",
}

func TestTestPasses(t *testing.T) {
	code, stdout, stderr := runCLI(t, suiteFiles, "", "test")
	want := "PASS web: values\nPASS web: set wins\nPASS web: a file that fails on the object\nPASS web: lint\n4 passed, 0 failed\n"
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
}

func TestTestFailures(t *testing.T) {
	files := map[string]string{}
	for k, v := range suiteFiles {
		files[k] = v
	}
	files["registry/tests/expected.yaml"] = strings.Replace(cm, "a: x", "a: other", 1) + widget
	files["registry/tests/broken.kpatch"] = "[configmap.c]\ndata.a: fine\n"
	files["registry/tests/nonidempotent.kpatch"] = "[deployment.web]\nreplicas: 2\n"
	code, stdout, _ := runCLI(t, files, "", "test", "registry")
	for _, want := range []string{
		"FAIL web: values\n--- expected.yaml\n+++ output\n",
		"-  a: other\n+  a: from-values\n",
		"PASS web: set wins\n",
		"FAIL web: a file that fails on the object\n    expected error not reported: \"broken.kpatch:2:\"\n",
		"FAIL web: lint\n    expected warning not reported: \"not idempotent\"\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if code != 1 || !strings.HasSuffix(stdout, "\n1 passed, 3 failed\n") {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
}

func TestTestUnexpectedErrorAndNothingPrinted(t *testing.T) {
	files := map[string]string{
		"kpatch-test.yaml": "patches: [bad.kpatch]\nresources: [app.yaml]\ntests:\n- name: no errors expected\n- name: nothing printed\n  expected: []\n",
		"bad.kpatch":       "[configmap.c]\nno separator\n",
		"app.yaml":         cm,
	}
	code, stdout, _ := runCLI(t, files, "", "test")
	if code != 1 || !strings.Contains(stdout, "FAIL .: no errors expected\n    unexpected error: bad.kpatch:2:1: ") ||
		!strings.Contains(stdout, "FAIL .: nothing printed\n    unexpected error: bad.kpatch:2:1: ") || !strings.HasSuffix(stdout, "0 passed, 2 failed\n") {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
}

func TestTestUpdate(t *testing.T) {
	files := map[string]string{
		"s/kpatch-test.yaml":  "patches: [p.kpatch]\nresources: [app.yaml]\ntests:\n- name: t\n  expected: out/expected.yaml\n",
		"s/p.kpatch":          "[configmap.c]\ndata.a: y # new\n",
		"s/app.yaml":          "# the app\n" + cm,
		"s/out/expected.yaml": "",
	}
	code, stdout, _ := runCLI(t, files, "", "test", "--update", "s/kpatch-test.yaml")
	if code != 0 || stdout != "PASS s: t\n1 passed, 0 failed\n" {
		t.Fatalf("--update: exit %d, stdout:\n%s", code, stdout)
	}
	got, err := os.ReadFile(filepath.Join("s", "out", "expected.yaml"))
	if err != nil || string(got) != "# the app\n"+strings.Replace(cm, "a: x", "a: \"y\"", 1) && string(got) != "# the app\n"+strings.Replace(cm, "a: x", "a: y", 1) {
		t.Errorf("expected.yaml is not what apply prints: %v\n%s", err, got)
	}
	if code, stdout, _ := runCLI(t, map[string]string{"s/kpatch-test.yaml": files["s/kpatch-test.yaml"], "s/p.kpatch": files["s/p.kpatch"], "s/app.yaml": files["s/app.yaml"], "s/out/expected.yaml": string(got)}, "", "test", "s"); code != 0 {
		t.Errorf("after --update: exit %d, stdout:\n%s", code, stdout)
	}
}

func TestTestSuiteErrors(t *testing.T) {
	for suite, want := range map[string]string{
		"patches: [p.kpatch]\nresources: [a.yaml]\ntests:\n- name: t\n  expect: x.yaml\n": "kpatch-test.yaml:5: field expect not found",
		"patches: [p.kpatch]\nresources: [a.yaml]\ntests:\n- expected: x.yaml\n":          "kpatch-test.yaml:4: a test needs a name",
		"patches: [p.kpatch]\ntests:\n- name: t\n":                                        "kpatch-test.yaml:3: test \"t\": no resources",
		"patches: [p.kpatch]\nparams: p.yaml\ntests:\n- name: t\n  lint: true\n":          "kpatch-test.yaml:2: field params not found",
		"patches: [p.kpatch]\nregistry: [r.yaml]\ntests:\n- name: t\n  lint: true\n":      "kpatch-test.yaml:4: test \"t\": both patches and registry",
		"registry: [r.yaml]\nvalues: v.yaml\ntests:\n- name: t\n  lint: true\n":           "kpatch-test.yaml:4: test \"t\": a registry carries its values",
		"tests: [\n": "kpatch-test.yaml:",
	} {
		code, stdout, _ := runCLI(t, map[string]string{"kpatch-test.yaml": suite, "p.kpatch": "[configmap.c]\ndata.a: y\n"}, "", "test")
		if code != 1 || !strings.Contains(stdout, "FAIL kpatch-test.yaml\n    "+want) || !strings.HasSuffix(stdout, "0 passed, 1 failed\n") {
			t.Errorf("suite %q: exit %d, stdout:\n%s\nwant %q", suite, code, stdout, want)
		}
	}
	code, _, stderr := runCLI(t, map[string]string{"a/p.kpatch": ""}, "", "test", "a")
	if code != 1 || stderr != "kpatch test: a: no kpatch-test.yaml in the directory or below\n" {
		t.Errorf("no suite: exit %d, stderr %q", code, stderr)
	}
}

// TestTestRequest: a suite sets the request the files' conditions read,
// as --request-operation, --request-user and --request-groups do; a
// test's own request wins over the suite's.
func TestTestRequest(t *testing.T) {
	files := map[string]string{
		"kpatch-test.yaml": `patches: [when.kpatch]
resources: [app.yaml]
request: {operation: UPDATE, groups: [dev]}
tests:
- name: an UPDATE by a developer
  expected: updated.yaml
- name: the default request is a CREATE by an unnamed user
  request: {}
  expected: app.yaml
- name: an UPDATE by another user
  request: {operation: update, user: alice}
  expected: app.yaml
`,
		"when.kpatch":  "# kpatch:when: request.operation == 'UPDATE' && has(request.userInfo.groups) && 'dev' in request.userInfo.groups\n[configmap.c]\ndata.a: updated\n",
		"app.yaml":     cm,
		"updated.yaml": strings.Replace(cm, "a: x", "a: updated", 1),
	}
	code, stdout, stderr := runCLI(t, files, "", "test")
	want := "PASS .: an UPDATE by a developer\nPASS .: the default request is a CREATE by an unnamed user\nPASS .: an UPDATE by another user\n3 passed, 0 failed\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
	files["kpatch-test.yaml"] = "patches: [when.kpatch]\nresources: [app.yaml]\ntests:\n- name: t\n  request: {operation: DELETE}\n  expected: app.yaml\n"
	code, stdout, _ = runCLI(t, files, "", "test")
	if want := "kpatch-test.yaml:4: test \"t\": request.operation must be CREATE or UPDATE, not \"DELETE\""; code != 1 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant %q", code, stdout, want)
	}
}
