package main

import (
	"encoding/json"
	"strings"
	"testing"

	"kpatch.dev/kpatch/internal/listalign"
	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// baseApp and prodApp are a Deployment and a ConfigMap before and after
// the changes a production overlay makes.
const (
	baseApp = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: main
        image: ghcr.io/example/web:1.4.2
        args: ["--port=8080", "--log-format=json"]
        env:
        - {name: LOG_LEVEL, value: info}
        - {name: DEBUG, value: "false"}
      tolerations:
      - {key: a, operator: Exists}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web-config}
data: {a: "1", b: x}
`
	prodApp = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, env: prod}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: main
        image: ghcr.io/example/web:1.5.0
        args: ["--port=8080", "--log-format=json", "--verbose"]
        env:
        - {name: LOG_LEVEL, value: warn}
        - {name: REGION, value: eu}
        resources:
          limits: {cpu: 1, memory: 512Mi}
      - name: envoy
        image: envoyproxy/envoy:v1.30.1
        ports: [{containerPort: 9901}]
      tolerations:
      - {key: a, operator: Exists}
      - {key: dedicated, operator: Equal, value: shop}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web-config}
data: {a: "2", c: "010"}
`
	prodKpatch = `[deployment.web]
labels.env: prod
replicas: 3

[deployment.web.containers[name=main]]
args[-]: --verbose
image: ghcr.io/example/web:1.5.0
resources.limits.cpu: 1
resources.limits.memory: 512Mi
env[delete=name=DEBUG]:

[deployment.web.containers[name=main].env[name=LOG_LEVEL]]
value: warn

[deployment.web.containers[name=main].env[-]]
name: REGION
value: eu

[deployment.web.containers[-]]
image: envoyproxy/envoy:v1.30.1
name: envoy

[deployment.web.containers[name=envoy].ports[-]]
containerPort: 9901

[deployment.web.tolerations[-]]
key: dedicated
operator: Equal
value: shop

[configmap.web-config]
data.a: "2"
data.b[delete]:
data.c: "010"
`
)

func TestDiffPrintsMinimalKpatch(t *testing.T) {
	files := map[string]string{"base.yaml": baseApp, "prod.yaml": prodApp}
	code, stdout, stderr := runCLI(t, files, "", "diff", "base.yaml", "prod.yaml")
	if code != 0 || stderr != "" || stdout != prodKpatch {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, prodKpatch)
	}
	// the printed file, applied by kpatch apply, gives TARGET
	files["prod.kpatch"] = stdout
	code, applied, stderr := runCLI(t, files, "", "apply", "-p", "prod.kpatch", "-f", "base.yaml", "-o", "json")
	_, want, _ := runCLI(t, files, "", "apply", "-p", "/dev/null", "-f", "prod.yaml", "-o", "json")
	if code != 0 || !sameJSONData(t, applied, want) {
		t.Errorf("apply: exit %d, stderr %s:\n%s\nwant:\n%s", code, stderr, applied, want)
	}
}

func TestDiffYAMLOutput(t *testing.T) {
	base := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: main, image: app}]\n"
	target := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: main, image: app}]\n" +
		"  volumes: [{name: cache, emptyDir: {}}]\n  nodeSelector: {disk: ssd, text: \"${not-a-variable}\"}\n"
	files := map[string]string{"base.yaml": base, "target.yaml": target}
	want := "- target: pod.p\n  patch:\n    nodeSelector:\n      disk: ssd\n      text: $${not-a-variable}\n" +
		"    volumes:\n    - emptyDir: {}\n      name: cache\n"
	code, stdout, stderr := runCLI(t, files, "", "diff", "-o", "yaml", "base.yaml", "target.yaml")
	if code != 0 || stdout != want {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
	// a .kpatch file has no empty map: the error names the field
	code, stdout, stderr = runCLI(t, files, "", "diff", "base.yaml", "target.yaml")
	if code != 1 || stdout != "" || !strings.Contains(stderr, `Pod p: spec.volumes[name=cache].emptyDir: an empty map; a .kpatch file cannot write it (use -o yaml`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestDiffUnpairedObjects(t *testing.T) {
	base := cm + "---\n" + strings.Replace(cm, "name: c", "name: old", 1)
	target := strings.Replace(cm, "a: x", "a: z", 1) + "---\n" + strings.Replace(cm, "name: c", "name: new", 1)
	files := map[string]string{"base.yaml": base, "target.yaml": target}
	code, stdout, stderr := runCLI(t, files, "", "diff", "base.yaml", "target.yaml")
	wantErr := "warning: ConfigMap old is only in BASE: a patch cannot delete an object\n" +
		"warning: ConfigMap new is only in TARGET: a patch cannot create an object\n"
	if code != 0 || stdout != "[configmap.c]\ndata.a: z\n" || stderr != wantErr {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, files, "", "diff", "--fail-unmatched", "base.yaml", "target.yaml")
	if code != 1 || stdout == "" || !strings.HasPrefix(stderr, "ConfigMap old is only in BASE") {
		t.Errorf("--fail-unmatched: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}

func TestDiffNamespace(t *testing.T) {
	target := strings.Replace(cm, "metadata: {name: c}", "metadata: {name: c, namespace: prod}", 1)
	target = strings.Replace(target, "a: x", "a: z", 1)
	files := map[string]string{"base.yaml": cm, "target.yaml": target}
	code, stdout, stderr := runCLI(t, files, "", "diff", "base.yaml", "target.yaml")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "ConfigMap prod/c is only in TARGET: a patch cannot create an object (BASE has it without a namespace: -n prod puts") {
		t.Errorf("without -n: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, files, target, "diff", "-n", "prod", "base.yaml", "-")
	if code != 0 || stderr != "" || stdout != "[prod/configmap.c]\ndata.a: z\n" {
		t.Errorf("-n prod: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}

func TestDiffGroupDisambiguates(t *testing.T) {
	crd := "apiVersion: example.com/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {strategy: a}\n"
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n"
	files := map[string]string{
		"base.yaml":   deploy + "---\n" + crd,
		"target.yaml": strings.Replace(deploy, "replicas: 1", "replicas: 2", 1) + "---\n" + strings.Replace(crd, "a}", "b}", 1),
	}
	code, stdout, stderr := runCLI(t, files, "", "diff", "base.yaml", "target.yaml")
	want := "[deployment(apps).web]\nreplicas: 2\n\n[deployment(example.com).web]\nspec.strategy: b\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
}

func TestDiffErrors(t *testing.T) {
	files := map[string]string{"a.yaml": cm, "twice.yaml": cm + "---\n" + cm}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"diff", "a.yaml"}, 2, "expected BASE and TARGET, got 1 arguments"},
		{[]string{"diff", "-", "-"}, 2, "standard input (-) can be read only once"},
		{[]string{"diff", "-o", "json", "a.yaml", "a.yaml"}, 2, `-o must be kpatch or yaml, not "json"`},
		{[]string{"diff", "twice.yaml", "a.yaml"}, 1, "BASE: ConfigMap c: the object appears more than once"},
		{[]string{"diff", "a.yaml", "missing.yaml"}, 1, "missing.yaml: no such file or directory"},
	} {
		code, stdout, stderr := runCLI(t, files, "", tc.args...)
		if code != tc.code || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("kpatch %v: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
}

// sameJSONData reports whether two JSON texts hold the same data, as the
// API server reads it (cpu: 1 is the quantity "1"): scalars by their text.
func sameJSONData(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, a)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return jsonvalue.Equal(scalarsAsText(x), scalarsAsText(y))
}

// scalarsAsText returns v with every scalar but null written as its text.
func scalarsAsText(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = scalarsAsText(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = scalarsAsText(e)
		}
		return out
	}
	if text, ok := listalign.ScalarText(v); ok {
		return text
	}
	return v
}

// pod is a Pod with the given spec, in flow style.
func pod(spec string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: " + spec + "\n"
}

func TestDiffListForms(t *testing.T) {
	for _, tc := range []struct {
		name, base, target, want string
	}{{
		name:   "an item gone from a list without key: deleted by a field only it has",
		base:   pod(`{containers: [{name: m, image: a}], tolerations: [{key: a, operator: Exists}, {key: b, operator: Exists}]}`),
		target: pod(`{containers: [{name: m, image: a}], tolerations: [{key: a, operator: Exists}]}`),
		want:   "[pod.p]\ntolerations[delete=key=b]:\n",
	}, {
		name:   "a scalar gone from a list: the list emptied and built again, never [delete=N]",
		base:   pod(`{containers: [{name: m, image: a, args: [--a, --b, --c]}]}`),
		target: pod(`{containers: [{name: m, image: a, args: [--a, --c]}]}`),
		want:   "[pod.p.containers[name=m]]\nargs[*][delete]:\nargs[-]: --a\nargs[-]: --c\n",
	}, {
		name:   "a scalar changed in place: set by index",
		base:   pod(`{containers: [{name: m, image: a, args: [--a, --b]}]}`),
		target: pod(`{containers: [{name: m, image: a, args: [--a, --x]}]}`),
		want:   "[pod.p.containers[name=m]]\nargs.1: --x\n",
	}, {
		name:   "an item that moved: deleted, then inserted where it goes (first: before index 0)",
		base:   pod(`{containers: [{name: a, image: a}, {name: b, image: b}, {name: c, image: c}]}`),
		target: pod(`{containers: [{name: b, image: b}, {name: a, image: a}, {name: c, image: c}]}`),
		want:   "[pod.p]\ncontainers[delete=name=b]:\n\n[pod.p.containers[-0]]\nimage: b\nname: b\n",
	}, {
		name:   "a new item in the middle: inserted after the item it follows",
		base:   pod(`{containers: [{name: a, image: a}, {name: c, image: c}]}`),
		target: pod(`{containers: [{name: a, image: a}, {name: b, image: b}, {name: c, image: c}]}`),
		want:   "[pod.p.containers[+name=a]]\nimage: b\nname: b\n",
	}, {
		name:   "ports addressed by their merge key",
		base:   pod(`{containers: [{name: m, image: a, ports: [{containerPort: 80, name: http}]}]}`),
		target: pod(`{containers: [{name: m, image: a, ports: [{containerPort: 80, name: web}]}]}`),
		want:   "[pod.p.containers[name=m].ports[containerPort=80]]\nname: web\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, map[string]string{"b.yaml": tc.base, "t.yaml": tc.target}, "", "diff", "b.yaml", "t.yaml")
			if code != 0 || stdout != tc.want {
				t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, tc.want)
			}
		})
	}
}

func TestDiffWritesWholeWhatInsertionsCannotReach(t *testing.T) {
	// two ports 53 (UDP and TCP): an insertion identified by containerPort
	// could update the other one, so the list is written whole
	base := pod(`{containers: [{name: dns, image: a, ports: [{containerPort: 53, protocol: UDP, name: dns}]}]}`)
	target := pod(`{containers: [{name: dns, image: a, ports: [{containerPort: 53, protocol: UDP, name: dns}, {containerPort: 53, protocol: TCP, name: dns-tcp}]}]}`)
	files := map[string]string{"b.yaml": base, "t.yaml": target}
	code, stdout, stderr := runCLI(t, files, "", "diff", "-o", "yaml", "b.yaml", "t.yaml")
	want := "- target: pod.p\n  patch:\n    containers[name=dns].ports:\n    - containerPort: 53\n      name: dns\n      protocol: UDP\n" +
		"    - containerPort: 53\n      name: dns-tcp\n      protocol: TCP\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
	code, _, stderr = runCLI(t, files, "", "diff", "b.yaml", "t.yaml")
	if code != 1 || !strings.Contains(stderr, "a list whose items cannot be appended one by one") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestDiffUnaddressableFields(t *testing.T) {
	crd := "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nlabels: {a: \"1\"}\n"
	files := map[string]string{"b.yaml": crd, "t.yaml": strings.Replace(crd, `"1"`, `"2"`, 1)}
	code, stdout, stderr := runCLI(t, files, "", "diff", "b.yaml", "t.yaml")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "Widget w: labels.a: the format reads a first field labels as metadata.labels: no patch path can spell the field") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestDiffDirectoriesWithoutChanges(t *testing.T) {
	files := map[string]string{"base/a.yaml": cm, "base/sub/b.yaml": baseApp, "prod/all.yaml": baseApp + "---\n" + cm}
	code, stdout, stderr := runCLI(t, files, "", "diff", "-R", "base", "prod")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want nothing", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, files, "", "diff", "base", "prod")
	if code != 0 || !strings.Contains(stderr, "warning: Deployment web is only in TARGET") {
		t.Errorf("without -R: exit %d, stderr %q", code, stderr)
	}
}
