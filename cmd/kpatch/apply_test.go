package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestApplyFromStdinAsJSONList(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\ndata.n: 3\n"},
		cm+"---\n"+strings.Replace(cm, "name: c", "name: d", 1), "apply", "-p", "p.kpatch", "-f", "-", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Items      []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("output is not one JSON document: %v\n%s", err, stdout)
	}
	if list.APIVersion != "v1" || list.Kind != "List" || len(list.Items) != 2 {
		t.Fatalf("want a v1 List of 2 objects, got %s %s of %d\n%s", list.APIVersion, list.Kind, len(list.Items), stdout)
	}
	if d := list.Items[0]["data"].(map[string]any); d["a"] != "y" || d["n"] != "3" {
		t.Errorf("first object not patched: %v", d)
	}
	if d := list.Items[1]["data"].(map[string]any); d["a"] != "x" {
		t.Errorf("second object patched: %v", d)
	}
}

func TestApplyOneObjectAsJSON(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, cm, "apply", "-p", "p.kpatch", "-f", "-", "-o", "json")
	var obj map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &obj) != nil || obj["kind"] != "ConfigMap" {
		t.Errorf("exit %d, stderr %s; want the object itself, got:\n%s", code, stderr, stdout)
	}
}

func TestApplyNoObjectAsJSON(t *testing.T) {
	code, stdout, _ := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, "", "apply", "-p", "p.kpatch", "-f", "-", "-o", "json")
	var list map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &list) != nil || list["kind"] != "List" || fmt.Sprint(list["items"]) != "[]" {
		t.Errorf("exit %d; want an empty List, got:\n%s", code, stdout)
	}
}

func TestApplyListItems(t *testing.T) {
	list := "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSpace(cm), "\n", "\n  ") + "\n"
	code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, list, "apply", "-p", "p.kpatch", "-f", "-")
	if code != 0 || !strings.Contains(stdout, "a: \"y\"") && !strings.Contains(stdout, "a: y") {
		t.Errorf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("the List's item matched, yet: %s", stderr)
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
	// --set reads 1.10 as a number, which a string field receives as written
	code, stdout, stderr := runCLI(t, files, cm, "apply", "-p", "p.kpatch", "-f", "-", "--values", "values.yaml", "--set", "values.w=1.10", "--set-string", "values.v=1.10")
	if code != 0 || !strings.Contains(stdout, `v: "1.10"`) || !strings.Contains(stdout, `w: "1.10"`) {
		t.Errorf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	code, _, stderr = runCLI(t, files, cm, "apply", "-p", "p.kpatch", "-f", "-", "--set", "features.x=maybe")
	if code != 1 || !strings.Contains(stderr, "booleans") {
		t.Errorf("a non-boolean feature: exit %d, %s", code, stderr)
	}
}

func TestInvalidInput(t *testing.T) {
	for in, want := range map[string]string{
		"- a\n- b\n":      "kpatch apply: <stdin>:1: document 1: expected a Kubernetes object (a map)",
		"a: [\n":          "kpatch apply: <stdin>:1: document 1: invalid YAML: ",
		"\"just text\"\n": "kpatch apply: <stdin>:1: document 1: expected a Kubernetes object (a map)",
		// the line of the file, not of the document, where the YAML library gives it
		cm + "---\n" + cm + "---\n# third\nkind: ConfigMap\ndata:\n\ta: 1\n": "kpatch apply: <stdin>:14: document 3: invalid YAML: found character that cannot start any token",
		// kubectl rejects an object without kind or apiVersion
		cm + "---\nmetadata: {name: c}\ndata: {a: x}\n":                                               "kpatch apply: <stdin>:6: document 2: apiVersion and kind not set",
		"kind: ConfigMap\nmetadata: {name: c}\n":                                                      "kpatch apply: <stdin>:1: document 1: apiVersion not set",
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap}\n- {kind: Secret}\n": "kpatch apply: <stdin>:1: document 1: item 2 of the List: apiVersion not set",
	} {
		code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, in, "apply", "-p", "p.kpatch", "-f", "-")
		if code != 1 || stdout != "" || !strings.HasPrefix(stderr, want) {
			t.Errorf("input %q: exit %d, stdout %q, stderr %q; want %q", in, code, stdout, stderr, want)
		}
	}
}

// unmatchedFiles hold a section and a merge entry that match nothing.
var unmatchedFiles = map[string]string{
	"app.kpatch": "[configmap.c]\ndata.a: y\n\n# another name: matches nothing\n[configmap.other]\ndata.b: z\n\n[prod/configmap.c]\ndata.c: w\n",
	"merge.yaml": "- target: configmap.c\n  type: strategic\n  patch:\n    data: {m: n}\n- target: secret.s\n  type: merge\n  patch:\n    data: {k: dg==}\n",
}

func TestApplyWarnsOfUnmatchedTargets(t *testing.T) {
	code, stdout, stderr := runCLI(t, unmatchedFiles, cm, "apply", "-p", "app.kpatch", "-p", "merge.yaml", "-f", "-")
	if code != 0 || !strings.Contains(stdout, `a: "y"`) || !strings.Contains(stdout, `m: "n"`) || strings.Contains(stdout, "b: z") {
		t.Fatalf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	want := "app.kpatch:5:1: warning: target configmap.other matches no object of the input\n" +
		"app.kpatch:8:1: warning: target prod/configmap.c matches no object of the input\n" +
		"merge.yaml:5:3: warning: target secret.s matches no object of the input\n"
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
	// -n supplies the namespace the object lacks
	_, _, stderr = runCLI(t, unmatchedFiles, cm, "apply", "-p", "app.kpatch", "-f", "-", "-n", "prod")
	if strings.Contains(stderr, "prod/configmap.c") || !strings.Contains(stderr, "configmap.other") {
		t.Errorf("with -n prod: %s", stderr)
	}
}

func TestApplyFailUnmatched(t *testing.T) {
	code, stdout, stderr := runCLI(t, unmatchedFiles, cm, "apply", "-p", "app.kpatch", "-f", "-", "--fail-unmatched")
	if code != 1 || !strings.Contains(stdout, `a: "y"`) {
		t.Errorf("exit %d; want 1 with the objects still printed:\n%s", code, stdout)
	}
	if !strings.Contains(stderr, "app.kpatch:5:1: target configmap.other matches no object of the input\n") || strings.Contains(stderr, "warning") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if code, _, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, cm, "apply", "-p", "p.kpatch", "-f", "-", "--fail-unmatched"); code != 0 || stderr != "" {
		t.Errorf("every target matched: exit %d, %s", code, stderr)
	}
}

func TestApplyDirectories(t *testing.T) {
	files := map[string]string{
		"patches/b.kpatch":     "[configmap.*]\ndata.b: ${values.x}\n",
		"patches/a.yaml":       "- target: configmap.c\n  patch:\n    data.a: from-yaml\n",
		"patches/notes.txt":    "not a patch",
		"patches/sub/c.kpatch": "[configmap.*]\ndata.c: deep\n",
		"manifests/one.yaml":   cm,
		"manifests/two.json":   `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}}`,
		"manifests/README.md":  "# not a manifest",
		"manifests/sub/3.yml":  strings.Replace(cm, "name: c", "name: e", 1),
	}
	code, stdout, stderr := runCLI(t, files, "", "apply", "-p", "patches", "-f", "manifests", "--set", "values.x=1", "-o", "json")
	var list struct{ Items []map[string]any }
	if code != 0 || json.Unmarshal([]byte(stdout), &list) != nil || len(list.Items) != 2 {
		t.Fatalf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	// a.yaml applies before b.kpatch; the subdirectory is not read without -R
	if d := list.Items[0]["data"].(map[string]any); d["a"] != "from-yaml" || d["b"] != "1" || d["c"] != nil {
		t.Errorf("first object: %v", d)
	}
	code, stdout, stderr = runCLI(t, files, "", "apply", "-R", "-p", "patches", "-f", "manifests", "--set", "values.x=1", "-o", "json")
	if code != 0 || json.Unmarshal([]byte(stdout), &list) != nil || len(list.Items) != 3 || list.Items[2]["data"].(map[string]any)["c"] != "deep" {
		t.Errorf("-R: exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	code, _, stderr = runCLI(t, files, "", "apply", "-p", "patches", "-f", "patches/sub")
	if code != 1 || !strings.Contains(stderr, "patches/sub: no file ending in .yaml, .yml, .json in the directory") {
		t.Errorf("a directory without manifests: exit %d, %s", code, stderr)
	}
}

func TestApplyPatchFromStdin(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"in.yaml": cm}, "[configmap.c]\ndata.a: piped\nbad line\n", "apply", "-p", "-", "-f", "in.yaml")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "<stdin>:3:1: ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, map[string]string{"in.yaml": cm}, "[configmap.c]\ndata.a: piped\n", "apply", "-p", "-", "-f", "in.yaml")
	if code != 0 || !strings.Contains(stdout, "a: piped") {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
}

// TestUnmatchedKindSetsAndGlobs: a target by kind set or kind glob is
// unmatched only when no object of any kind it covers matches it.
func TestUnmatchedKindSetsAndGlobs(t *testing.T) {
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers: [{name: a, image: app:v1}]\n"
	files := map[string]string{"m.kpatch": "[@workload.*.allContainers]\nimage.registry: mirror.internal:5000\n\n[*.web]\nlabels.x: y\n\n[@workload.api]\nserviceAccountName: api\n\n[*set.*]\nlabels.y: z\n"}
	code, stdout, stderr := runCLI(t, files, deploy, "apply", "-p", "m.kpatch", "-f", "-")
	if code != 0 || !strings.Contains(stdout, "mirror.internal:5000/app:v1") {
		t.Fatalf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	want := "m.kpatch:7:1: warning: target @workload.api matches no object of the input\n" +
		"m.kpatch:10:1: warning: target *set.* matches no object of the input\n"
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
}
