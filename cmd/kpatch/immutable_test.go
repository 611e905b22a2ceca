package main

import (
	"strings"
	"testing"
)

const immutablePod = `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: prod
spec:
  containers:
  - name: app
    image: app:1
`

// TestImmutableOnUpdateOffline: with --request-operation UPDATE, apply
// (with and without --admission) leaves out a file that changes a field
// an UPDATE of a Pod may not change, without a warning and with exit 0,
// as the webhook does, and explain reports it immutable with the field;
// on a CREATE it applies.
func TestImmutableOnUpdateOffline(t *testing.T) {
	files := map[string]string{
		"p/a.kpatch": "[pod.web]\nspec.hostname: h\nlabels.spec: \"yes\"\n",
		"p/b.kpatch": "[pod.web]\nlabels.label: \"yes\"\n",
	}
	for _, admission := range [][]string{nil, {"--admission"}} {
		args := append([]string{"apply", "-p", "p", "-f", "-", "--request-operation", "UPDATE"}, admission...)
		code, stdout, stderr := runCLI(t, files, immutablePod, args...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, "label: \"yes\"") || strings.Contains(stdout, "hostname") || strings.Contains(stdout, "spec: \"yes\"") {
			t.Errorf("%v: exit %d, stdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
		}
		code, stdout, stderr = runCLI(t, files, immutablePod, args[:5]...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, "hostname: h") {
			t.Errorf("CREATE: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	}
	code, stdout, stderr := runCLI(t, files, immutablePod, "explain", "-p", "p", "-f", "-", "--request-operation", "UPDATE")
	if code != 0 || !strings.Contains(stdout, "p/a.kpatch: immutable (") || !strings.Contains(stdout, "spec.hostname") {
		t.Errorf("explain: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
