package kpatch

import (
	"errors"
	"strings"
	"testing"
)

// TestStrategicPanicFailsTheFile applies a strategic merge patch to a
// Deployment whose containers hold null: the strategic merge library
// panics there. The file fails on the object with an ApplyError at its
// entry; the other file still applies.
func TestStrategicPanicFailsTheFile(t *testing.T) {
	strategic := mustPatch(t, "s.yaml", `- target: deployment.web
  type: strategic
  patch:
    spec:
      template:
        spec:
          containers:
          - name: a
            image: x
`)
	field := mustPatch(t, "f.kpatch", "[deployment.web]\nreplicas: 2\n")
	obj := mustObject(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {template: {spec: {containers: [null, {name: a}]}}}\n")
	out, err := Apply(obj, []*Patch{strategic, field}, ApplyOptions{})
	var ae *ApplyError
	if !errors.As(err, &ae) || !errors.Is(err, ErrPanic) {
		t.Fatalf("want an ApplyError wrapping ErrPanic, got %v", err)
	}
	if ae.Pos.String() != "s.yaml:1:3" || !strings.Contains(ae.Msg, "merge library") {
		t.Errorf("error: %v", ae)
	}
	var pe *PanicError
	if !errors.As(err, &pe) || len(pe.Stack) == 0 {
		t.Errorf("want a PanicError with a stack, got %v", err)
	}
	spec := out["spec"].(map[string]any)
	if spec["replicas"] != int64(2) {
		t.Errorf("the other file did not apply: %v", spec)
	}
	if c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any); c[0] != nil || len(c) != 2 {
		t.Errorf("the failed file changed the containers: %v", c)
	}
}
