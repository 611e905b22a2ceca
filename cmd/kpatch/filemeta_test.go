package main

import (
	"strings"
	"testing"
)

func TestExplainFileMetadata(t *testing.T) {
	files := map[string]string{
		"p/a.kpatch":   "# kpatch:requires: c\n# kpatch:description: The team's replicas.\n[deployment.web]\nreplicas: 3\n",
		"p/b.kpatch":   "# kpatch:enabled: ${features.off}\n[deployment.web]\nreplicas: 9\n",
		"p/c.kpatch":   "[deployment.web]\nreplicas: 2\n",
		"p/cm.kpatch":  "# kpatch:description: not shown: unmatched\n[configmap.c]\ndata.b: y\n",
		"p/zz.kpatch":  "[deployment.web]\nlabels.z: z\n",
		"p/zzz.kpatch": "# kpatch:conflicts: zz\n# kpatch:enabled: ${features.off}\n[deployment.web]\nlabels.z: y\n",
	}
	code, stdout, stderr := runCLI(t, files, strings.SplitN(explainApp, "---", 2)[0], "explain", "-p", "p", "-f", "-", "--set", "features.off=false")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	want := `Deployment prod/web (apps/v1)
  1. [layer 0, kind.name] p/b.kpatch: disabled (enabled: ${features.off} is false)
  2. [layer 0, kind.name] p/c.kpatch: patched
       ~ spec.replicas: 1 -> 2
  3. [layer 0, kind.name] p/a.kpatch: patched
       # The team's replicas.
       ~ spec.replicas: 2 -> 3
  4. [layer 0, kind.name] p/cm.kpatch: unmatched (no section's target matches the object)
  5. [layer 0, kind.name] p/zz.kpatch: patched
       + metadata.labels: {"z":"z"}
  6. [layer 0, kind.name] p/zzz.kpatch: disabled (enabled: ${features.off} is false)
  applied: ` + versioned(files, "p/c.kpatch", "p/a.kpatch", "p/zz.kpatch") + `
`
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
	}
}

// TestExplainDisabledAndRequired: explain lists a disabled file at its
// place with why (with --registry too), and the ${required} fields that
// the final object lacks, with the file that requires each.
func TestExplainDisabledAndRequired(t *testing.T) {
	files := map[string]string{
		"p/base.kpatch":   "[deployment.*]\nserviceAccountName: ${required}\n[deployment.*.containers[name=app]]\nimage.tag: ${required}\n",
		"p/canary.kpatch": "# kpatch:enabled: ${features.canary}\n# kpatch:description: The canary.\n[deployment.web]\nlabels.canary: \"1\"\n",
		"p/off.yaml":      "- metadata: {enabled: false}\n- target: deployment.web\n  patch: {serviceAccountName: off}\n",
		"registry.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: reg, labels: {kpatch.dev/registry: \"true\"}}\ndata:\n" +
			"  values.yaml: \"features: {canary: false}\"\n  canary.kpatch: |\n    # kpatch:enabled: ${features.canary}\n    [deployment.web]\n    labels.canary: \"1\"\n",
	}
	app := strings.SplitN(explainApp, "---", 2)[0]
	code, stdout, stderr := runCLI(t, files, app, "explain", "-p", "p", "-f", "-", "--set", "features.canary=false")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	want := `Deployment prod/web (apps/v1)
  1. [layer 0, kind.*] p/base.kpatch: unchanged (matched; every value was already there)
  2. [layer 0, kind.name] p/canary.kpatch: disabled (enabled: ${features.canary} is false)
       # The canary.
  3. [layer 0, kind.name] p/off.yaml: disabled (enabled: false)
  required and not set: spec.template.spec.serviceAccountName (${required} at p/base.kpatch:2:1)
`
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
	}
	code, stdout, stderr = runCLI(t, files, app, "explain", "-p", "p", "-f", "-", "--set", "features.canary=false", "-o", "yaml")
	for _, w := range []string{"result: disabled\n    reason: 'enabled: ${features.canary} is false'", "missingRequired:\n  - path: spec.template.spec.serviceAccountName\n    file: p/base.kpatch\n    line: 2\n    column: 1\n"} {
		if code != 0 || !strings.Contains(stdout, w) {
			t.Errorf("-o yaml: exit %d, want %q in:\n%s%s", code, w, stdout, stderr)
		}
	}
	code, stdout, stderr = runCLI(t, files, app, "explain", "--registry", "registry.yaml", "-f", "-")
	if want := "  1. [layer 0, kind.name] reg/canary.kpatch: disabled (enabled: ${features.canary} is false)\n"; code != 0 || !strings.HasSuffix(stdout, want) {
		t.Errorf("--registry: exit %d, want %q in:\n%s%s", code, want, stdout, stderr)
	}
}

func TestApplyFileMetadataErrors(t *testing.T) {
	files := map[string]string{
		"p/a.kpatch": "# kpatch:requires: b\n[deployment.web]\nreplicas: 3\n",
		"p/b.kpatch": "[deployment.web]\nreplicas: 2\n[\n",
	}
	code, stdout, stderr := runCLI(t, files, explainApp, "lint", "p/a.kpatch", "p/b.kpatch")
	if code != 1 || !strings.Contains(stdout, "p/a.kpatch:1:20: requires p/b.kpatch, which does not apply") {
		t.Errorf("lint: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, files, explainApp, "apply", "-p", "p/a.kpatch", "-f", "-")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "p/a.kpatch:1:20: requires b, which names no patch file") {
		t.Errorf("apply: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}
