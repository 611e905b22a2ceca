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
  1. [layer 0, kind.name] p/c.kpatch: patched
       ~ spec.replicas: 1 -> 2
  2. [layer 0, kind.name] p/a.kpatch: patched
       # The team's replicas.
       ~ spec.replicas: 2 -> 3
  3. [layer 0, kind.name] p/cm.kpatch: unmatched (no section's target matches the object)
  4. [layer 0, kind.name] p/zz.kpatch: patched
       + metadata.labels: {"z":"z"}
`
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
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
