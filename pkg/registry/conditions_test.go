package registry

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/condition"
)

// TestCompilerReportsConditionErrors: a condition that does not compile
// is a problem of its file at file:line:col, as every compile error; the
// other files of the ConfigMap compile and apply.
func TestCompilerReportsConditionErrors(t *testing.T) {
	var c Compiler
	b := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{
		"bad.kpatch":  "[deployment.*]\n# kpatch:when: object.spec.replicas > 2 && 1 > 'a'\nreplicas: 1\n",
		"good.kpatch": "# kpatch:when: object.spec.replicas > 2\n[deployment.*]\nlabels.big: \"yes\"\n",
	})}, nil)
	if len(b.Problems) != 1 {
		t.Fatalf("problems: %v", b.Problems)
	}
	err := b.Problems[0].Err
	if !errors.Is(err, condition.ErrInvalid) || !strings.Contains(err.Error(), "a/bad.kpatch:2:46: when: found no matching overload for '_>_'") {
		t.Errorf("problem: %v", err)
	}
	if got := names(b.Registry, "Deployment"); got != "a/good.kpatch" {
		t.Errorf("deployment files %q, want the good one", got)
	}
}
