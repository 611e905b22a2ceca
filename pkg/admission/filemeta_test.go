package admission

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// canaryFiles enable files by the feature canary, which a Namespace may
// set: canary.kpatch by it, needs-canary.kpatch requires it, classic.kpatch
// conflicts with it.
var canaryFiles = map[string]string{
	registry.ParametersKey: "parameters:\n- {name: canary, type: boolean, default: false}\n",
	"canary.kpatch": "# kpatch:enabled: ${features.canary}\n" +
		"[deployment.web]\nlabels.canary: \"on\"\n",
	"needs-canary.kpatch": "# kpatch:requires: canary\n" +
		"[deployment.web]\nlabels.needs: \"yes\"\n",
	"zz-classic.kpatch": "# kpatch:conflicts: canary\n" +
		"[deployment.web]\nlabels.classic: \"yes\"\n",
}

func TestFileMetadataPerNamespace(t *testing.T) {
	h := valuesHandler(t, canaryFiles, namespaces{
		"on":  namespace("on", map[string]string{"values.kpatch.dev/canary": "true"}),
		"off": namespace("off", nil),
	})
	got, warns, _ := patchedLabels(t, h, "on", "")
	if got["canary"] != "on" || got["needs"] != "yes" || got["classic"] != "" || len(warns) != 1 ||
		!strings.Contains(warns[0], "reg/zz-classic.kpatch:1:21: Deployment on/web: reg/zz-classic.kpatch and reg/canary.kpatch conflict, and both are enabled: reg/canary.kpatch applies") {
		t.Errorf("on: %v %q", got, warns)
	}
	got, warns, _ = patchedLabels(t, h, "off", "")
	if got["canary"] != "" || got["needs"] != "" || got["classic"] != "yes" || len(warns) != 1 ||
		!strings.Contains(warns[0], "reg/needs-canary.kpatch:1:20: Deployment off/web: requires reg/canary.kpatch, which is disabled for the object") {
		t.Errorf("off: %v %q", got, warns)
	}
}

func TestFileMetadataBuiltinEnabled(t *testing.T) {
	files := map[string]string{
		"prod.kpatch": "# kpatch:enabled: ${namespace.labels.app.kubernetes.io/part-of}\n[deployment.web]\nlabels.prod: \"yes\"\n",
	}
	h := valuesHandler(t, files, namespaces{"shop": namespace("shop", nil)})
	if got, warns, _ := patchedLabels(t, h, "shop", ""); got["prod"] != "yes" || len(warns) != 0 {
		t.Errorf("shop: %v %q", got, warns)
	}
	// a Namespace that has not the label: the variable has no value
	if got, warns, _ := patchedLabels(t, h, "unknown", ""); got["prod"] != "" || len(warns) != 1 || !strings.Contains(warns[0], "enabled:") {
		t.Errorf("unknown: %v %q", got, warns)
	}
}

func TestFileMetadataRegistry(t *testing.T) {
	var c registry.Compiler
	built := c.Build([]corev1.ConfigMap{
		configMap("a", map[string]string{
			registry.ValuesKey: "features:\n  legacy: false\n",
			"team.kpatch":      "# kpatch:requires: base/common\n[deployment.web]\nlabels.team: a\n",
			"legacy.kpatch":    "# kpatch:enabled: ${features.legacy}\n[deployment.web]\nlabels.legacy: a\n",
			"needs.kpatch":     "# kpatch:requires: legacy\n[deployment.web]\nlabels.needs: a\n",
			"missing.kpatch":   "# kpatch:requires: nothere\n[deployment.web]\nlabels.m: a\n",
			"conflict.kpatch":  "# kpatch:conflicts: team\n[deployment.web]\nlabels.c: a\n",
		}),
		configMap("base", map[string]string{"common.yaml": "- metadata: {description: the base}\n- target: deployment.web\n  patch: {replicas: 2}\n"}),
	}, nil)
	var order []string // Files: ConfigMap name and key order
	for _, f := range built.Registry.Files() {
		state := "applies"
		switch {
		case f.Err != nil:
			state = f.Err.Error()
		case f.Disabled:
			state = "disabled"
		}
		order = append(order, f.Ref.String()+": "+state)
	}
	want := []string{
		"a/conflict.kpatch: applies",
		"a/legacy.kpatch: disabled",
		"a/missing.kpatch: a/missing.kpatch:1:20: requires nothere, which names no patch file",
		"a/needs.kpatch: a/needs.kpatch:1:20: requires a/legacy.kpatch, which is disabled (enabled: ${features.legacy} at line 1)",
		"a/team.kpatch: a/conflict.kpatch:1:21: a/team.kpatch and a/conflict.kpatch conflict, and both are enabled: a/conflict.kpatch applies, a/team.kpatch does not",
		"base/common.yaml: applies",
	}
	if strings.Join(order, "\n") != strings.Join(want, "\n") {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
	if built.Registry.Active() != 2 {
		t.Errorf("active %d", built.Registry.Active())
	}
	var refused []string
	for _, p := range built.Problems {
		refused = append(refused, p.Ref.String())
		if !errors.Is(p.Err, kpatch.ErrRequirement) && !errors.Is(p.Err, kpatch.ErrFileConflict) {
			t.Errorf("%s: %v", p.Ref, p.Err)
		}
	}
	if strings.Join(refused, " ") != "a/missing.kpatch a/needs.kpatch a/team.kpatch" {
		t.Errorf("problems %v", refused)
	}
}
