package main

import (
	"strings"
	"testing"

	"kpatch.dev/kpatch/internal/objecttest"
)

const writtenPatch = `[deployment.web]
replicas: 3
labels.env: prod
annotations.new: "yes"

[deployment.web.containers[name=main]]
image.tag: "1.27"
env[name=A].value: "y"
env[delete=name=B]:
args[-]: --c

[deployment.web.containers[-]]
name: logger
image: fluent:2

[configmap.settings]
data.drop[delete]:
data.change: new
data.added: "1.10"
`

// writtenPatched is written with the patch applied: every other byte is
// the input's.
var writtenPatched = strings.NewReplacer(
	`  labels: {app: web, tier: "front"}`, `  labels: {app: web, tier: "front", env: prod}`,
	"    single: 'quoted'\n", "    single: 'quoted'\n    new: \"yes\"\n",
	"  replicas: 2  # two replicas", "  replicas: 3  # two replicas",
	"          image: nginx:1.25   # pinned\n          args: [\"--a\", \"--b\"]",
	"          image: nginx:1.27   # pinned\n          args: [\"--a\", \"--b\", --c]",
	"              value: \"x\"   # quoted\n            - name: B\n              value: y\n",
	"              value: \"y\"   # quoted\n",
	"          image: envoy:1\n", "          image: envoy:1\n        - image: fluent:2\n          name: logger\n",
	"  # about drop\n  drop: gone   # removed\n  change: old\n", "  change: new\n  added: \"1.10\"\n",
).Replace(objecttest.Written)

func TestApplyKeepsWhatTheUserWrote(t *testing.T) {
	files := map[string]string{"app.yaml": objecttest.Written, "p.kpatch": writtenPatch}
	code, stdout, stderr := runCLI(t, files, "", "apply", "-p", "p.kpatch", "-f", "app.yaml")
	if code != 0 || stdout != writtenPatched {
		t.Fatalf("exit %d, stderr %s, stdout:\n%s\nwant:\n%s", code, stderr, stdout, writtenPatched)
	}
	// no patch that matches: the input, byte for byte
	code, stdout, _ = runCLI(t, files, "", "apply", "-p", "p.kpatch", "-f", "app.yaml", "-n", "elsewhere", "-p", "/dev/null")
	if code != 0 || !strings.Contains(stdout, "  k: 'v'     # odd spacing\n  on: yes\n...\n---\n# only a comment\n---\n") {
		t.Errorf("the untouched documents changed:\n%s", stdout)
	}
	code, stdout, _ = runCLI(t, map[string]string{"app.yaml": objecttest.Written, "none.kpatch": "[secret.none]\ndata.x: eA==\n"}, "", "apply", "-p", "none.kpatch", "-f", "app.yaml")
	if code != 0 || stdout != objecttest.Written {
		t.Errorf("nothing patched, yet the output differs from the input:\n%s", stdout)
	}
}

func TestApplyJoinsFilesAndKeepsJSONAsBefore(t *testing.T) {
	files := map[string]string{
		"a.yaml":   "# a\n" + cm, // no separator at either end
		"b.yaml":   "---\n" + strings.Replace(cm, "name: c", "name: d", 1),
		"c.json":   `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "e"}, "data": {"a": "x"}}`,
		"p.kpatch": "[configmap.e]\ndata.a: z\n",
	}
	code, stdout, stderr := runCLI(t, files, "", "apply", "-p", "p.kpatch", "-f", "a.yaml", "-f", "b.yaml", "-f", "c.json")
	want := "# a\n" + cm + "---\n" + strings.Replace(cm, "name: c", "name: d", 1) +
		"---\napiVersion: v1\ndata:\n  a: z\nkind: ConfigMap\nmetadata:\n  name: e\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %s, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
}

func TestApplyRewritesWhatItCannotEditInPlace(t *testing.T) {
	// an anchor and its alias: the changed document is printed from its
	// node tree; comments, order and quoting stay
	in := "# anchors\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: &v \"010\"\n  b: *v\n  c: on   # kept\n"
	files := map[string]string{"a.yaml": in, "p.kpatch": "[configmap.c]\ndata.a: \"011\"\n"}
	code, stdout, stderr := runCLI(t, files, "", "apply", "-p", "p.kpatch", "-f", "a.yaml")
	want := "# anchors\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: \"011\"\n  b: \"010\"\n  c: on # kept\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %s, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
}

func TestApplyValueChangesShape(t *testing.T) {
	in := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c   # c\n  labels:\n    a: b\ndata:\n  x: \"1\"\n"
	files := map[string]string{"a.yaml": in, "p.yaml": "- target: configmap.c\n  patch:\n    labels[delete]:\n    annotations: {k: v}\n"}
	code, stdout, stderr := runCLI(t, files, "", "apply", "-p", "p.yaml", "-f", "a.yaml")
	want := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c   # c\n  annotations:\n    k: v\ndata:\n  x: \"1\"\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %s, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
}

func TestApplyKeepsLineEnds(t *testing.T) {
	in := "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: c # c\r\ndata:\r\n  a: x\r\n"
	files := map[string]string{"a.yaml": in, "p.kpatch": "[configmap.c]\ndata.a: z\ndata.b: w\n"}
	code, stdout, stderr := runCLI(t, files, "", "apply", "-p", "p.kpatch", "-f", "a.yaml")
	want := "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: c # c\r\ndata:\r\n  a: z\r\n  b: w\r\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %s, stdout %q\nwant %q", code, stderr, stdout, want)
	}
}
