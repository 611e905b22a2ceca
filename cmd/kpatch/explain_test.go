package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/pkg/registry"
)

const explainApp = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: app:1
        env:
        - {name: DEBUG, value: "1"}
---
` + cm

// explainFiles are patch files of every result on the Deployment.
var explainFiles = map[string]string{
	"p/10-base.kpatch": "[deployment.web]\nreplicas: 3\nmetadata.labels.team: payments\ncontainers.name=app.env[delete=name=DEBUG]:\n",
	"p/20-same.kpatch": "[deployment.web]\nreplicas: 3\n",
	"p/30-cm.kpatch":   "[configmap.c]\ndata.b: y\n",
	"p/40-bad.kpatch":  "[deployment.web]\ncontainers[name=nope].image: x\n",
}

func TestExplainText(t *testing.T) {
	code, stdout, stderr := runCLI(t, explainFiles, explainApp, "explain", "-p", "p", "-f", "-")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d (explain is a diagnostic: a failed file exits 0), stderr:\n%s", code, stderr)
	}
	want := `Deployment prod/web (apps/v1)
  1. [layer 0, kind.name] p/10-base.kpatch: patched
       + metadata.labels: {"team":"payments"}
       ~ spec.replicas: 1 -> 3
       - spec.template.spec.containers[name=app].env[name=DEBUG]: {"name":"DEBUG","value":"1"}
  2. [layer 0, kind.name] p/20-same.kpatch: unchanged (matched; every value was already there)
  3. [layer 0, kind.name] p/30-cm.kpatch: unmatched (no section's target matches the object)
  4. [layer 0, kind.name] p/40-bad.kpatch: failed
       p/40-bad.kpatch:2:11: Deployment prod/web: no item of spec.template.spec.containers matches name=nope
  applied: p/10-base.kpatch@` + registry.Version(explainFiles["p/10-base.kpatch"]) + `

ConfigMap c (v1)
  1. [layer 0, kind.name] p/10-base.kpatch: unmatched (no section's target matches the object)
  2. [layer 0, kind.name] p/20-same.kpatch: unmatched (no section's target matches the object)
  3. [layer 0, kind.name] p/30-cm.kpatch: patched
       + data.b: "y"
  4. [layer 0, kind.name] p/40-bad.kpatch: unmatched (no section's target matches the object)
  applied: p/30-cm.kpatch@` + registry.Version(explainFiles["p/30-cm.kpatch"]) + `
`
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
	}
}

// explainOutput decodes -o json and -o yaml alike.
type explainOutput struct {
	Objects []struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string
		Namespace  string
		Name       string
		Files      []struct {
			File     string
			Position int
			Result   string
			Changes  []map[string]any
			Errors   []string
		}
	}
}

func TestExplainStructuredOutput(t *testing.T) {
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, explainFiles, explainApp, "explain", "-p", "p", "-f", "-", "-o", format)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var out explainOutput
			var err error
			if format == "json" {
				err = json.Unmarshal([]byte(stdout), &out)
			} else {
				err = yaml.Unmarshal([]byte(stdout), &out)
			}
			if err != nil || len(out.Objects) != 2 {
				t.Fatalf("%v; want 2 objects, got:\n%s", err, stdout)
			}
			d := out.Objects[0]
			if d.APIVersion != "apps/v1" || d.Kind != "Deployment" || d.Namespace != "prod" || d.Name != "web" || len(d.Files) != 4 {
				t.Fatalf("first object: %+v", d)
			}
			results := ""
			for _, f := range d.Files {
				results += fmt.Sprintf("%d:%s:%s ", f.Position, f.File, f.Result)
			}
			if results != "1:p/10-base.kpatch:patched 2:p/20-same.kpatch:unchanged 3:p/30-cm.kpatch:unmatched 4:p/40-bad.kpatch:failed " {
				t.Errorf("files: %s", results)
			}
			got := fmt.Sprint(d.Files[0].Changes)
			want := `[map[new:map[team:payments] op:add path:metadata.labels] map[new:3 old:1 op:replace path:spec.replicas] ` +
				`map[old:map[name:DEBUG value:1] op:remove path:spec.template.spec.containers[name=app].env[name=DEBUG]]]`
			if got != want {
				t.Errorf("changes:\n%s\nwant:\n%s", got, want)
			}
			if e := d.Files[3].Errors; len(e) != 1 || !strings.HasPrefix(e[0], "p/40-bad.kpatch:2:11: ") {
				t.Errorf("errors of the failed file: %q", e)
			}
		})
	}
}

// TestExplainFollowsApply: files apply one at a time, each to the result
// of the ones before, and match as apply matches them: a file that
// renames the object leaves the rest of the run matching the old name.
func TestExplainFollowsApply(t *testing.T) {
	files := map[string]string{
		"1.kpatch": "[configmap.c]\ndata.a: y\n",
		"2.kpatch": "[configmap.c]\ndata.a: z\nmetadata.name: renamed\n",
		"3.kpatch": "[configmap.c]\ndata.k: \"1\"\n",
		"4.kpatch": "[configmap.renamed]\ndata.k: \"2\"\n",
	}
	args := []string{"-p", "1.kpatch", "-p", "2.kpatch", "-p", "3.kpatch", "-p", "4.kpatch", "-f", "-"}
	code, stdout, stderr := runCLI(t, files, cm, append([]string{"explain"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, line := range []string{
		`  1. [layer 0, kind.name] 1.kpatch: patched` + "\n" + `       ~ data.a: "x" -> "y"`,
		`       ~ data.a: "y" -> "z"` + "\n" + `       ~ metadata.name: "c" -> "renamed"`,
		`  3. [layer 0, kind.name] 3.kpatch: patched` + "\n" + `       + data.k: "1"`,
		`  4. [layer 0, kind.name] 4.kpatch: unmatched`,
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("missing %q in:\n%s", line, stdout)
		}
	}
	_, applied, _ := runCLI(t, files, cm, append([]string{"apply"}, args...)...)
	if !strings.Contains(applied, `k: "1"`) || strings.Contains(applied, `k: "2"`) {
		t.Errorf("apply disagrees with the explanation:\n%s", applied)
	}
}

func TestExplainRegistryOrder(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"registry.yaml": registryManifests},
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n", "explain", "--registry", "registry.yaml", "-f", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "Deployment web (apps/v1)\n" +
		"  1. [layer 0, kind.name] a-base/web.kpatch: patched\n       + metadata.labels: {\"team\":\"base\"}\n       ~ spec.replicas: 2 -> 1\n" +
		"  2. [layer 0, kind.name] b-team/web.kpatch: patched\n       ~ spec.replicas: 1 -> 3\n" +
		"  applied: a-base/web.kpatch@" + registry.Version("[deployment.web]\nreplicas: 1\nlabels.team: base\n") +
		", b-team/web.kpatch@" + registry.Version("[deployment.web]\nreplicas: ${values.replicas}\n") + "\n"
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
	}
}

// TestExplainLayers: files apply by layer, then from the generic target
// to the specific one, then in the order given, and explain says so.
func TestExplainLayers(t *testing.T) {
	files := map[string]string{
		"p/1-web.kpatch":  "[configmap.c]\ndata.a: web\n",
		"p/2-all.kpatch":  "[configmap.*]\ndata.a: all\n",
		"p/3-top.kpatch":  "# kpatch:layer: 1\n[configmap.*]\ndata.a: top\n",
		"p/4-low.kpatch":  "# kpatch:layer: -1\n[configmap.c]\ndata.a: low\n",
		"p/5-glob.kpatch": "[configmap.c*]\ndata.a: glob\n",
	}
	code, stdout, stderr := runCLI(t, files, cm, "explain", "-p", "p", "-f", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "ConfigMap c (v1)\n" +
		"  1. [layer -1, kind.name] p/4-low.kpatch: patched\n       ~ data.a: \"x\" -> \"low\"\n" +
		"  2. [layer 0, kind.*] p/2-all.kpatch: patched\n       ~ data.a: \"low\" -> \"all\"\n" +
		"  3. [layer 0, kind.name*] p/5-glob.kpatch: patched\n       ~ data.a: \"all\" -> \"glob\"\n" +
		"  4. [layer 0, kind.name] p/1-web.kpatch: patched\n       ~ data.a: \"glob\" -> \"web\"\n" +
		"  5. [layer 1, kind.*] p/3-top.kpatch: patched\n       ~ data.a: \"web\" -> \"top\"\n" +
		"  applied: " + versioned(files, "p/4-low.kpatch", "p/2-all.kpatch", "p/5-glob.kpatch", "p/1-web.kpatch", "p/3-top.kpatch") + "\n"
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
	}
	_, stdout, _ = runCLI(t, files, cm, "explain", "-p", "p", "-f", "-", "-o", "json")
	if !strings.Contains(stdout, `"position": 3,
                    "layer": 0,
                    "specificity": "kind.name*",`) {
		t.Errorf("JSON without the layer and specificity:\n%s", stdout)
	}
}

func TestExplainReplacements(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"repl.yaml": replFile, "p.kpatch": "[configmap.app]\ndata.extra: \"1\"\n"},
		replResources, "explain", "-p", "p.kpatch", "-p", "repl.yaml", "-f", "-", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out explainOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out.Objects) != 2 {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	// the replacements file selects a name of any kind: less specific than
	// [configmap.app], it applies first
	app := out.Objects[1]
	if app.Name != "app" || app.Files[0].File != "repl.yaml" || app.Files[0].Result != "patched" || app.Files[1].Result != "patched" ||
		fmt.Sprint(app.Files[0].Changes) != "[map[new:2.0 old:unknown op:replace path:data.version]]" {
		t.Errorf("the List's item: %+v", app)
	}
	if release := out.Objects[0]; release.Files[0].Result != "unchanged" {
		t.Errorf("the source object: %+v", release)
	}
}

func TestExplainInputErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"compile error", []string{"-p", "bad.kpatch", "-f", "-"}, 1, "bad.kpatch:2:1: "},
		{"missing manifest", []string{"-p", "ok.kpatch", "-f", "nope.yaml"}, 1, "nope.yaml: no such file"},
		{"output format", []string{"-p", "ok.kpatch", "-f", "-", "-o", "wide"}, 2, "-o must be text, json or yaml"},
		{"no patches", []string{"-f", "-"}, 2, "at least one -p FILE"},
		{"registry and patches", []string{"-p", "ok.kpatch", "--registry", "ok.kpatch", "-f", "-"}, 2, "either --registry or patch files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"bad.kpatch": "[configmap.c]\n???\n", "ok.kpatch": "[configmap.c]\ndata.a: y\n"}
			code, stdout, stderr := runCLI(t, files, cm, append([]string{"explain"}, tc.args...)...)
			if code != tc.code || stdout != "" || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, tc.code, stdout, stderr, tc.stderr)
			}
		})
	}
}

// versioned names files as explain's applied: line does: name@version,
// separated by ", ".
func versioned(files map[string]string, names ...string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + "@" + registry.Version(files[n])
	}
	return strings.Join(out, ", ")
}

// TestExplainAuditMode: a file in audit mode is reported would-patch with
// the changes it would have made, the files after it see the object as
// if it were not there, and the report names it under would apply (JSON:
// wouldApply), apart from the files that changed the object; apply
// leaves the object as the enforcing files make it, and warns.
func TestExplainAuditMode(t *testing.T) {
	files := map[string]string{
		"p/1-audit.kpatch": "# kpatch:mode: audit\n[configmap.c]\ndata.a: audit\n",
		"p/2-fill.kpatch":  "[configmap.c]\ndata.b?: filled\n",
		"p/3-audit.yaml":   "- metadata: {mode: audit}\n- target: configmap.c\n  patch: {data.b: audit}\n",
	}
	code, stdout, stderr := runCLI(t, files, cm, "explain", "-p", "p", "-f", "-")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	want := "ConfigMap c (v1)\n" +
		"  1. [layer 0, kind.name] p/1-audit.kpatch: would-patch (audit mode: the object is left as it was)\n       ~ data.a: \"x\" -> \"audit\"\n" +
		"  2. [layer 0, kind.name] p/2-fill.kpatch: patched\n       + data.b: \"filled\"\n" +
		"  3. [layer 0, kind.name] p/3-audit.yaml: would-patch (audit mode: the object is left as it was)\n       ~ data.b: \"filled\" -> \"audit\"\n" +
		"  applied: " + versioned(files, "p/2-fill.kpatch") + "\n" +
		"  would apply: " + versioned(files, "p/1-audit.kpatch", "p/3-audit.yaml") + "\n"
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
	}
	_, stdout, _ = runCLI(t, files, cm, "explain", "-p", "p", "-f", "-", "-o", "json")
	var report struct {
		Objects []struct{ Applied, WouldApply []string }
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil || len(report.Objects) != 1 ||
		fmt.Sprint(report.Objects[0].WouldApply) != "["+strings.ReplaceAll(versioned(files, "p/1-audit.kpatch", "p/3-audit.yaml"), ",", "")+"]" {
		t.Errorf("JSON %v: %s", err, stdout)
	}
	code, stdout, stderr = runCLI(t, files, cm, "apply", "-p", "p", "-f", "-")
	if code != 0 || !strings.Contains(stdout, "a: x") || !strings.Contains(stdout, "b: filled") ||
		!strings.Contains(stderr, "p/1-audit.kpatch: audit mode: would patch ConfigMap c; left as it was") {
		t.Errorf("apply exit %d:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
