package main

import (
	"math/rand/v2"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// written is a stream as people write it: comments everywhere, flow maps,
// odd quoting and spacing, scalars that a rewrite would respell (1.10,
// on, "010"), blank lines, an end marker, a comment-only document and a
// document separator with a comment.
const written = `# Top comment of the stream
---   # first document
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web   # the name
  labels: {app: web, tier: "front"}
  annotations:
    version: 1.10
    enabled: on
    zero: "010"
    single: 'quoted'
spec:
  replicas: 2  # two replicas

  selector:
    matchLabels:
      app: web
  template:
    spec:
      containers:
        # the main container
        - name: main
          image: nginx:1.25   # pinned
          args: ["--a", "--b"]
          env:
            - name: A
              value: "x"   # quoted
            - name: B
              value: y
        - name: side
          image: envoy:1
---
# second document: untouched
apiVersion: v1
kind: ConfigMap
metadata: {name: other}
data:
  k: 'v'     # odd spacing
  on: yes
...
---
# only a comment
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  keep: "010"
  # about drop
  drop: gone   # removed
  change: old
`

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
).Replace(written)

func TestApplyKeepsWhatTheUserWrote(t *testing.T) {
	files := map[string]string{"app.yaml": written, "p.kpatch": writtenPatch}
	code, stdout, stderr := runCLI(t, files, "", "apply", "-p", "p.kpatch", "-f", "app.yaml")
	if code != 0 || stdout != writtenPatched {
		t.Fatalf("exit %d, stderr %s, stdout:\n%s\nwant:\n%s", code, stderr, stdout, writtenPatched)
	}
	// no patch that matches: the input, byte for byte
	code, stdout, _ = runCLI(t, files, "", "apply", "-p", "p.kpatch", "-f", "app.yaml", "-n", "elsewhere", "-p", "/dev/null")
	if code != 0 || !strings.Contains(stdout, "  k: 'v'     # odd spacing\n  on: yes\n...\n---\n# only a comment\n---\n") {
		t.Errorf("the untouched documents changed:\n%s", stdout)
	}
	code, stdout, _ = runCLI(t, map[string]string{"app.yaml": written, "none.kpatch": "[secret.none]\ndata.x: eA==\n"}, "", "apply", "-p", "none.kpatch", "-f", "app.yaml")
	if code != 0 || stdout != written {
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

// TestSpliceRandomChanges edits random documents, written in several
// layouts, into random other objects: the edited text must read back as
// the new object, edited in place (no coarser writer needed).
func TestSpliceRandomChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 600 {
		var base, target map[string]any
		if i%2 == 0 {
			base, target = randomDeployment(r), randomDeployment(r)
		} else {
			base = randomWidget(r)
			target = mutate(r, deepCopy(base), 0).(map[string]any)
			restoreIdentity(target)
		}
		var n yaml.Node
		if err := n.Encode(base); err != nil {
			t.Fatal(err)
		}
		text, err := layout{indent: 2 + 2*(i%2), compact: i%3 == 0}.encode(&n, 0)
		if err != nil {
			t.Fatal(err)
		}
		f, err := readManifestFile("x", text)
		if err != nil {
			t.Fatal(err)
		}
		out, err := spliceDocument(text, f.documents()[0].obj, target)
		if err != nil || !decodesTo(out, target) {
			t.Fatalf("%d: err %v:\n%s\n--- out:\n%s\ntarget %s", i, err, text, out, brief(target))
		}
	}
}

// FuzzSplice edits any YAML document into a random change of its object:
// an edit in place must read back as the changed object.
func FuzzSplice(f *testing.F) {
	f.Add(written, uint64(1))
	f.Add("a: 1\nb:\n- x\n- {y: 2}\nc: |\n  text\n# end\n", uint64(2))
	f.Add("l:\n  - name: a # a\n    v: [1, 2]\n\n  - name: b\nm: {k: 'v'}\n", uint64(3))
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		if len(text) > 4096 {
			return
		}
		file, err := readManifestFile("fuzz.yaml", []byte(text))
		if err != nil || len(file.parts) != 1 || file.parts[0].doc.obj == nil {
			return
		}
		doc := file.parts[0].doc
		target, ok := mutate(rand.New(rand.NewPCG(seed, seed)), deepCopy(doc.obj), 1).(map[string]any)
		if !ok {
			return
		}
		out, err := spliceDocument(doc.text, doc.obj, target)
		if err == nil && !decodesTo(out, target) {
			t.Fatalf("the edited text does not read back as the object:\n%s\n--- out:\n%s\ntarget %s", text, out, brief(target))
		}
	})
}
