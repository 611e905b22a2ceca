package main

import (
	"strings"
	"testing"
)

// gadgetCRD is a CRD whose spec.mode is fast or slow.
const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Gadget, plural: gadgets}
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
              mode: {type: string, enum: [fast, slow]}
`

const gadget = "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {mode: slow}\n"

// TestTestCRDs: a suite's crds hold custom resources to their schemas, in
// apply and lint tests; a test's crds: [] leaves them unchecked.
func TestTestCRDs(t *testing.T) {
	files := map[string]string{
		"crds/gadget.yaml": gadgetCRD,
		"kpatch-test.yaml": `name: crds
patches: [mode.kpatch]
resources: [app.yaml]
crds: [crds]
tests:
- name: held to the schema
  expectedErrors: ["mode.kpatch:2:12: Gadget g", "spec.mode: \"fastt\" is not one of fast, slow (did you mean fast?)"]
  expected: app.yaml
- name: lint
  lint: true
  expectedErrors: ["spec.mode: \"fastt\" is not one of fast, slow"]
- name: without the CRD
  crds: []
  expected: fastt.yaml
`,
		"mode.kpatch": "[gadget.g]\nspec.mode: fastt\n",
		"app.yaml":    gadget,
		"fastt.yaml":  strings.Replace(gadget, "slow", "fastt", 1),
	}
	code, stdout, stderr := runCLI(t, files, "", "test")
	want := "PASS crds: held to the schema\nPASS crds: lint\nPASS crds: without the CRD\n3 passed, 0 failed\n"
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
	// the same suite without crds: the first test fails, as the file applies
	files["kpatch-test.yaml"] = strings.Replace(files["kpatch-test.yaml"], "crds: [crds]\n", "", 1)
	if code, stdout, _ := runCLI(t, files, "", "test"); code != 1 || !strings.Contains(stdout, "FAIL crds: held to the schema") {
		t.Errorf("without crds: exit %d, stdout:\n%s", code, stdout)
	}
}
