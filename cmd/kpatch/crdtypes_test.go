package main

import (
	"strings"
	"testing"
)

// widgetCRD is example.com/v1 Widget, with string, integer and map of
// string fields.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              image: {type: string}
              version: {type: string}
              size: {type: integer}
              replicas: {type: integer}
              tags: {type: object, additionalProperties: {type: string}}
`

// TestApplyTypesCustomResourcesByTheirCRD: with --crd, what patch files
// and replacements write into a custom resource takes the field's type
// from the CRD, in a stream and with --admission alike: 1.10 from a
// values file and a constant 2.10 stay texts in string fields, an
// integer copied into a string field is its text, the text "5" into an
// integer field is 5. Without --crd, the values are as YAML read them.
func TestApplyTypesCustomResourcesByTheirCRD(t *testing.T) {
	files := map[string]string{
		"crds/widget.yaml": widgetCRD,
		"app.yaml":         "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\nspec: {image: \"nginx:1.0\", size: 3}\n",
		"values.yaml":      "values:\n  release: 1.10\n",
		"patches/a.kpatch": "[widget.w]\nspec.tags.release: ${values.release}\nspec.tags.minor: 2.10\n",
		"patches/repl.yaml": `replacements:
- source: {kind: Widget, name: w, fieldPath: spec.size}
  targets:
  - select: {kind: Widget, name: w}
    fieldPaths: [spec.version]
    options: {create: true}
- sourceValue: "5"
  targets:
  - select: {kind: Widget}
    fieldPaths: [spec.replicas]
    options: {create: true}
`,
	}
	typed := `spec: {image: "nginx:1.0", size: 3, replicas: 5, tags: {minor: "2.10", release: "1.10"}, version: "3"}`
	for _, mode := range [][]string{nil, {"--admission"}} {
		args := append([]string{"apply", "--crd", "crds", "-p", "patches", "-f", "app.yaml", "--values", "values.yaml"}, mode...)
		code, stdout, stderr := runCLI(t, files, "", args...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, typed) {
			t.Errorf("%v: exit %d, stderr %q, stdout:\n%s\nwant %s", mode, code, stderr, stdout, typed)
		}
	}
	untyped := `tags: {minor: 2.1, release: 1.1}, version: 3}`
	code, stdout, stderr := runCLI(t, files, "", "apply", "-p", "patches", "-f", "app.yaml", "--values", "values.yaml")
	if code != 0 || stderr != "" || !strings.Contains(stdout, untyped) {
		t.Errorf("without --crd: exit %d, stderr %q, stdout:\n%s\nwant %s", code, stderr, stdout, untyped)
	}
}

// TestLintReportsCustomResourceValues: a value that the CRD's field does
// not take fails the file on the object at the value's position, which
// kpatch apply (on stderr) and kpatch lint (its findings, on stdout)
// report alike.
func TestLintReportsCustomResourceValues(t *testing.T) {
	files := map[string]string{
		"crds/widget.yaml": widgetCRD,
		"app.yaml":         "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\nspec: {size: 3}\n",
		"size.kpatch":      "[widget.w]\nspec.size: many\n",
	}
	files["repl.yaml"] = `replacements:
- sourceValue: abc
  targets:
  - select: {kind: Widget}
    fieldPaths: [spec.replicas]
    options: {create: true}
`
	for file, want := range map[string][2]string{
		"size.kpatch": {"size.kpatch:2:12: ", `Widget shop/w: spec.size: the field wants an integer, not "many"`},
		"repl.yaml":   {"repl.yaml:5:18: ", `Widget shop/w: unable to set field "spec.replicas" in replacement target: the field wants an integer, not "abc"`},
	} {
		for _, args := range [][]string{
			{"lint", "--crd", "crds", "-f", "app.yaml", file},
			{"apply", "--crd", "crds", "-f", "app.yaml", "-p", file},
			{"apply", "--admission", "--crd", "crds", "-f", "app.yaml", "-p", file},
		} {
			code, stdout, stderr := runCLI(t, files, "", args...)
			if out := stdout + stderr; code != 1 || !strings.Contains(out, want[0]) || !strings.Contains(out, want[1]) {
				t.Errorf("%v: exit %d, output:\n%s%s\nwant %s", args, code, stdout, stderr, want)
			}
		}
	}
}

// TestLintUselessOverridesOfCustomResources: lint types the values of
// custom resources by --crd when it looks for useless overrides: 1.1
// then 1.10 into a string field are two values, so the second is no
// useless override (the first is overwritten by it).
func TestLintUselessOverridesOfCustomResources(t *testing.T) {
	files := map[string]string{
		"crds/widget.yaml": widgetCRD,
		"app.yaml":         "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\nspec: {version: a}\n",
		"a.kpatch":         "[widget.w]\nspec.version: 1.1\n",
		"b.kpatch":         "[widget.w]\nspec.version: 1.10\n",
	}
	code, stdout, stderr := runCLI(t, files, "", "lint", "--crd", "crds", "-f", "app.yaml", "a.kpatch", "b.kpatch")
	if code != 0 || strings.Contains(stdout, "useless override") || !strings.Contains(stdout, "a.kpatch:1:1: warning: overwritten file") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	code, stdout, _ = runCLI(t, files, "", "lint", "-f", "app.yaml", "a.kpatch", "b.kpatch")
	if code != 0 || !strings.Contains(stdout, "b.kpatch:2:1: warning: useless override") {
		t.Errorf("without --crd (both write 1.1): exit %d, stdout:\n%s", code, stdout)
	}
}

// TestExplainTypesCustomResourcesByTheirCRD: kpatch explain takes --crd
// as apply does, and shows what apply writes.
func TestExplainTypesCustomResourcesByTheirCRD(t *testing.T) {
	files := map[string]string{
		"crds/widget.yaml": widgetCRD,
		"app.yaml":         "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\nspec: {version: a}\n",
		"v.kpatch":         "[widget.w]\nspec.version: 1.10\n",
	}
	for args, want := range map[string]string{
		"--crd": `~ spec.version: "a" -> "1.10"`,
		"":      `~ spec.version: "a" -> 1.1`,
	} {
		cmd := []string{"explain", "-p", "v.kpatch", "-f", "app.yaml"}
		if args != "" {
			cmd = append(cmd, args, "crds")
		}
		code, stdout, stderr := runCLI(t, files, "", cmd...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, want) {
			t.Errorf("%v: exit %d, stderr %q, stdout:\n%s\nwant %s", cmd, code, stderr, stdout, want)
		}
	}
}
