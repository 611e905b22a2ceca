package main

import (
	"strings"
	"testing"
)

// registryManifests are two registry ConfigMaps, written out of name
// order, and a ConfigMap the selector leaves out.
const registryManifests = `apiVersion: v1
kind: ConfigMap
metadata:
  name: b-team
  labels: {kpatch.dev/registry: "true"}
data:
  values.yaml: |
    values:
      replicas: 3
  web.kpatch: |
    [deployment.web]
    replicas: ${values.replicas}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: a-base
  labels: {kpatch.dev/registry: "true"}
data:
  web.kpatch: |
    [deployment.web]
    replicas: 1
    labels.team: base
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: other
data:
  x.kpatch: |
    [deployment.web]
    replicas: 9
`

const webDeployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"

func TestApplyRegistryOrderAndValues(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"registry/cms.yaml": registryManifests, "app.yaml": webDeployment},
		"", "apply", "--registry", "registry", "-f", "app.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// a-base applies before b-team, whatever the order in the file; b-team reads its own values.yaml
	if !strings.Contains(stdout, "replicas: 3") || !strings.Contains(stdout, "team: base") {
		t.Errorf("want replicas 3 (b-team after a-base) and the label of a-base:\n%s", stdout)
	}
	if !strings.Contains(stderr, "registry/cms.yaml:25: document 3: warning: ConfigMap other is not part of the registry: its labels do not match kpatch.dev/registry=true") {
		t.Errorf("want a warning about the unlabelled ConfigMap, got %q", stderr)
	}
}

func TestApplyRegistrySelector(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"cms.yaml": registryManifests, "app.yaml": webDeployment},
		"", "apply", "--registry", "cms.yaml", "--registry-selector", "", "-f", "app.yaml")
	if code != 0 || !strings.Contains(stdout, "replicas: 9") || stderr != "" {
		t.Errorf("an empty selector takes every ConfigMap (other last): exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
}

func TestApplyRegistryCompileError(t *testing.T) {
	broken := strings.Replace(registryManifests, "replicas: ${values.replicas}", "replicas: ${values.replica}", 1)
	code, stdout, stderr := runCLI(t, map[string]string{"cms.yaml": broken, "app.yaml": webDeployment},
		"", "apply", "--registry", "cms.yaml", "-f", "app.yaml")
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing printed", code, stdout)
	}
	if !strings.Contains(stderr, "b-team/web.kpatch:2:11: ") || !strings.Contains(stderr, "values.replica") {
		t.Errorf("want the problem at ConfigMap/key:line:col, got %q", stderr)
	}
}

func TestApplyRegistryValuesError(t *testing.T) {
	broken := strings.Replace(registryManifests, "replicas: 3\n", "replicas: [\n", 1)
	code, _, stderr := runCLI(t, map[string]string{"cms.yaml": broken, "app.yaml": webDeployment},
		"", "apply", "--registry", "cms.yaml", "-f", "app.yaml")
	if code != 1 || !strings.Contains(stderr, "b-team/values.yaml") {
		t.Errorf("exit %d, stderr %q; want 1 and the values.yaml named", code, stderr)
	}
}

func TestRegistryManifestErrors(t *testing.T) {
	twice := registryManifests + "---\n" + strings.SplitN(registryManifests, "---\n", 2)[0]
	for name, tc := range map[string]struct{ manifests, want string }{
		"no registry ConfigMap": {webDeployment, "cms.yaml: invalid registry manifest: no ConfigMap labelled kpatch.dev/registry=true"},
		"given twice":           {twice, "cms.yaml:34: document 4: invalid registry manifest: ConfigMap b-team is given twice (first at cms.yaml:1: document 1)"},
		"not a ConfigMap":       {"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: [1]}\n", "cms.yaml:1: document 1: invalid registry manifest: ConfigMap:"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runCLI(t, map[string]string{"cms.yaml": tc.manifests, "app.yaml": webDeployment},
				"", "apply", "--registry", "cms.yaml", "-f", "app.yaml")
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, tc.want)
			}
		})
	}
}

func TestRegistryUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"apply", "--registry", "cms.yaml", "-p", "p.kpatch", "-f", "app.yaml"},
		{"apply", "--registry", "cms.yaml", "--values", "v.yaml", "-f", "app.yaml"},
		{"apply", "--registry", "cms.yaml", "--parameters", "parameters.yaml", "-f", "app.yaml"},
		{"lint", "--registry", "cms.yaml", "p.kpatch"},
		{"apply", "--registry", "cms.yaml", "--registry-selector", "a=(", "-f", "app.yaml"},
	} {
		code, _, stderr := runCLI(t, map[string]string{"cms.yaml": registryManifests, "app.yaml": webDeployment}, "", args...)
		if code != 2 {
			t.Errorf("kpatch %s: exit %d, stderr %q; want 2", strings.Join(args, " "), code, stderr)
		}
	}
}

func TestLintRegistry(t *testing.T) {
	conflicting := strings.Replace(registryManifests, "name: other\n", "name: other\n  labels: {kpatch.dev/registry: \"true\"}\n", 1)
	code, stdout, _ := runCLI(t, map[string]string{"cms.yaml": conflicting}, "", "lint", "--registry", "cms.yaml")
	if code != 1 || !strings.Contains(stdout, "deployment.web spec.replicas: set by 2 files (a-base/web.kpatch:2:1 to 1, other/x.kpatch:2:1 to 9); other/x.kpatch:2:1 wins") {
		t.Errorf("exit %d; want 1 and the conflict between a-base/web.kpatch and other/x.kpatch, in registry order:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, map[string]string{"cms.yaml": registryManifests}, "", "lint", "--registry", "cms.yaml")
	if code != 0 || strings.Contains(stdout, "b-team") {
		t.Errorf("exit %d; a registry that compiles has no problem:\n%s", code, stdout)
	}
}

func TestTestSuiteRegistry(t *testing.T) {
	files := map[string]string{
		"registry/cms.yaml":               registryManifests,
		"registry/tests/kpatch-test.yaml": "registry: [..]\nresources: [app.yaml]\ntests:\n- name: registry\n  expected: expected.yaml\n",
		"registry/tests/app.yaml":         webDeployment,
		"registry/tests/expected.yaml":    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {team: base}\nspec:\n  replicas: 3\n",
	}
	code, stdout, _ := runCLI(t, files, "", "test", "registry")
	if code != 0 || !strings.Contains(stdout, "PASS registry/tests: registry") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

// TestApplyRegistryReplacements: a replacements file of the registry runs
// in registry order (its select ranks kind.name, as b-team's target:
// by ConfigMap name, after it), over the objects of the input as any replacements
// file offline (the webhook's sources are its own).
func TestApplyRegistryReplacements(t *testing.T) {
	cms := registryManifests + `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: c-repl
  labels: {kpatch.dev/registry: "true"}
data:
  repl.yaml: |
    replacements:
    - source: {kind: Deployment, name: web, fieldPath: spec.replicas}
      targets:
      - select: {kind: Deployment, name: web}
        fieldPaths: [metadata.annotations.replicas]
        options: {create: true}
`
	code, stdout, stderr := runCLI(t, map[string]string{"cms.yaml": cms, "app.yaml": webDeployment},
		"", "apply", "--registry", "cms.yaml", "-f", "app.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// an annotation holds strings: the integer is written as its text
	if !strings.Contains(stdout, "annotations:\n    replicas: \"3\"\n") {
		t.Errorf("want the replicas b-team set, copied by c-repl:\n%s", stdout)
	}
}
