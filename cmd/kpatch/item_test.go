package main

import (
	"strings"
	"testing"
)

// TestExplainItemConditions: explain says of a per-item condition, for
// each item it was evaluated on, whether it held.
func TestExplainItemConditions(t *testing.T) {
	files := map[string]string{
		"p/a.kpatch": "[pod.*.containers.*.args.*[delete]]\n# kpatch:when: item == '--debug'\n",
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: app\n    image: app:1\n    args: [--debug, --port=80]\n"
	code, stdout, stderr := runCLI(t, files, pod, "explain", "-p", "p", "-f", "-")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{
		"when (line 2, [pod.*.containers[*].args[*][delete]], item spec.containers[*].args[0]): item == '--debug': held\n",
		"when (line 2, [pod.*.containers[*].args[*][delete]], item spec.containers[*].args[1]): item == '--debug': did not hold\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("got:\n%s\nwant a line:\n%s", stdout, want)
		}
	}
}

// TestLintItemFields: lint reports a field of item that the items' type
// does not have at its line and column: a value's at the value, a
// condition's at the reading of item in the expression.
func TestLintItemFields(t *testing.T) {
	files := map[string]string{
		"reg/a.kpatch": "[pod.*.containers.*]\nimagePullPolicy: ${item.imagePullPolicyy}\n\n[pod.*.volumes.*[delete]]\n# kpatch:when: has(item.hostPth)\n",
	}
	code, stdout, _ := runCLI(t, files, "", "lint", "reg")
	want := "reg/a.kpatch:2:18: ${item.imagePullPolicyy}: the items (Container) have no field \"imagePullPolicyy\" (did you mean imagePullPolicy?)\n" +
		"reg/a.kpatch:5:20: when: the items (Volume) have no field \"hostPth\" (did you mean hostPath?)\n"
	if code != 1 || stdout != want {
		t.Errorf("exit %d, got:\n%s\nwant:\n%s", code, stdout, want)
	}
}
