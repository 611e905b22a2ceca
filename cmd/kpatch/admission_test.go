package main

import (
	"strings"
	"testing"
)

// sourceFile copies the region of the ConfigMap settings into each
// ConfigMap's own data.
const sourceFile = `replacements:
- source: {kind: ConfigMap, name: settings, fieldPath: data.region}
  targets:
  - select: {kind: ConfigMap, name: app}
    fieldPaths: [data.region]
`

// settings is a source ConfigMap of namespace with the region.
func settings(namespace, region string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: " + namespace +
		"\n  labels: {kpatch.dev/source: \"true\"}\ndata: {region: " + region + "}\n---\n"
}

func TestAdmissionRegistryNamespace(t *testing.T) {
	app := func(namespace string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: " + namespace + "}\ndata: {region: none}\n---\n"
	}
	input := strings.TrimSuffix(settings("kpatch-system", "default")+settings("platform", "platform")+app("shop")+app("platform")+app("kpatch-system"), "---\n")
	for _, tc := range []struct {
		args []string
		want []string // the region of app in shop, platform, kpatch-system
	}{
		{nil, []string{"default", "platform", "none"}},
		{[]string{"--registry-namespace", "platform"}, []string{"platform", "none", "default"}},
	} {
		args := append([]string{"apply", "-p", "repl.yaml", "-f", "-", "--admission"}, tc.args...)
		code, stdout, stderr := runCLI(t, map[string]string{"repl.yaml": sourceFile}, input, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		docs := strings.Split(stdout, "---\n")
		if len(docs) != 5 {
			t.Fatalf("%v: want 5 objects, got:\n%s", tc.args, stdout)
		}
		for i, want := range tc.want {
			if !strings.Contains(docs[2+i], "region: "+want+"}") {
				t.Errorf("%v: app %d: want region %s, got:\n%s", tc.args, i, want, docs[2+i])
			}
		}
	}
}

func TestAdmissionFlagsUsage(t *testing.T) {
	code, _, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, cm, "apply", "-p", "p.kpatch", "-f", "-", "--registry-namespace", "reg")
	if code != 2 || !strings.Contains(stderr, "--registry-namespace goes with --admission") {
		t.Errorf("exit %d, stderr %q: want a usage error", code, stderr)
	}
}

func TestAdmissionListItemsAlone(t *testing.T) {
	// each item of a List is an object of its own: ${object.name} is its
	// own name, and the file that fails on one item leaves the other
	list := "apiVersion: v1\nkind: List\nitems:\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: shop}, data: {x: \"1\"}}\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: jobs}, data: {x: \"1\"}}\n" +
		"---\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {team: t1}}\n"
	patch := "[configmap.*]\ndata.self: ${object.name}\ndata.team: ${namespace.labels.team}\n"
	code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": patch}, list, "apply", "-p", "p.kpatch", "-f", "-", "--admission", "-o", "json")
	if code != 1 || !strings.Contains(stderr, "p.kpatch:3:") || !strings.Contains(stderr, "jobs/b") || strings.Contains(stderr, "shop/a") {
		t.Errorf("exit %d, stderr %q: want the file failing on jobs/b only", code, stderr)
	}
	if !strings.Contains(stdout, `"self": "a"`) || !strings.Contains(stdout, `"team": "t1"`) || strings.Contains(stdout, `"self": "b"`) {
		t.Errorf("want a patched with its own name and team, b untouched:\n%s", stdout)
	}
}

func TestAdmissionUpdateOfTerminatingObject(t *testing.T) {
	// as the webhook, --admission passes an UPDATE of an object being
	// deleted unpatched (admit.Admit), and patches it on a CREATE
	deleting := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop, deletionTimestamp: \"2024-01-01T00:00:00Z\"}\ndata: {a: x}\n"
	for op, want := range map[string]string{"UPDATE": "a: x", "CREATE": `a: "y"`} {
		code, stdout, stderr := runCLI(t, map[string]string{"p.kpatch": "[configmap.c]\ndata.a: y\n"}, deleting, "apply", "-p", "p.kpatch", "-f", "-", "--admission", "--request-operation", op)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("%s: exit %d, stderr %q: want %q in:\n%s", op, code, stderr, want, stdout)
		}
	}
}
