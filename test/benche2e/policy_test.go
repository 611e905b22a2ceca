package main

import (
	"errors"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

func TestMutationForEachPatchType(t *testing.T) {
	for _, pt := range []admissionregistrationv1.PatchType{
		admissionregistrationv1.PatchTypeJSONPatch, admissionregistrationv1.PatchTypeApplyConfiguration,
	} {
		m, err := mutation(pt)
		if err != nil || m.PatchType != pt || (m.JSONPatch == nil) == (m.ApplyConfiguration == nil) {
			t.Errorf("%s: got %+v, %v", pt, m, err)
		}
	}
	if _, err := mutation("jsonpatch"); !errors.Is(err, errPatchType) {
		t.Errorf("a misspelt patch type: got %v, want errPatchType", err)
	}
}
