package main

import (
	"strings"
	"testing"
)

const conditionApp = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
spec:
  replicas: 3
`

// TestExplainConditions: explain says of each condition whether it held,
// and lists a file its conditions leave out as unmet; --request-user,
// --request-groups and --request-operation set the request conditions
// read offline.
func TestExplainConditions(t *testing.T) {
	files := map[string]string{
		"p/a.kpatch": "# kpatch:when: object.spec.replicas > 2\n[deployment.web]\nlabels.big: \"yes\"\n\n[deployment.web]\n# kpatch:when: request.userInfo.username == 'alice' && 'admins' in request.userInfo.groups\nlabels.alice: \"yes\"\n",
		"p/b.kpatch": "# kpatch:when: request.operation == 'UPDATE'\n[deployment.web]\nlabels.update: \"yes\"\n",
	}
	code, stdout, stderr := runCLI(t, files, conditionApp, "explain", "-p", "p", "-f", "-")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	want := `Deployment prod/web (apps/v1)
  1. [layer 0, kind.name] p/a.kpatch: patched
       when (line 1): object.spec.replicas > 2: held
       when (line 6, [deployment.web]): request.userInfo.username == 'alice' && 'admins' in request.userInfo.groups: did not hold
       + metadata.labels: {"big":"yes"}
  2. [layer 0, kind.name] p/b.kpatch: unmet (its conditions leave it out of the object)
       when (line 1): request.operation == 'UPDATE': did not hold
  applied: p/a.kpatch@37a9943ce242
`
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
	}
	code, stdout, stderr = runCLI(t, files, conditionApp, "apply", "-p", "p", "-f", "-", "--request-user", "alice", "--request-groups", "dev,admins", "--request-operation", "update")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "alice: \"yes\"") || !strings.Contains(stdout, "update: \"yes\"") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, files, conditionApp, "apply", "-p", "p", "-f", "-", "--request-operation", "DELETE")
	if code != 2 || !strings.Contains(stderr, "--request-operation must be CREATE or UPDATE") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestLintRefusesACostlyCondition: a condition whose worst-case cost
// exceeds the per-call limit is a compile error where the cost is made
// (here, replace's result of the annotation's size squared), with the
// estimate and the limit; the other files are linted as usual.
func TestLintRefusesACostlyCondition(t *testing.T) {
	files := map[string]string{
		"reg/costly.kpatch": "[deployment.*]\n# kpatch:when: object.metadata.annotations['a'].replace('a', object.metadata.annotations['a']).size() > 0\nlabels.a: b\n",
		"reg/good.kpatch":   "# kpatch:when: object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example/'))\n[deployment.*]\nlabels.b: c\n",
	}
	code, stdout, stderr := runCLI(t, files, "", "lint", "reg")
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "reg/costly.kpatch:2:49: when: estimated worst-case cost ") ||
		!strings.Contains(lines[0], " exceeds the per-call limit 1000000 (") || !strings.HasSuffix(lines[0], " of it in replace())") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}
