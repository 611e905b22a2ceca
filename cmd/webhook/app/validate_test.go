package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"kpatch.dev/kpatch/pkg/admission"
)

// validate posts a review of a CREATE of the registry ConfigMap edited,
// holding file, to /validate-registry and returns the HTTP status and,
// for a 200, the answer.
func (s *testServer) validate(t *testing.T, file string) (int, *admissionv1.AdmissionResponse) {
	t.Helper()
	code, answer := s.postTo(t, s.path(admission.ValidatePath)+"?timeout=10s", validateBody(t, file))
	if code != http.StatusOK {
		return code, nil
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal([]byte(answer), &out); err != nil || out.Response == nil {
		t.Fatalf("answer %.300s: %v", answer, err)
	}
	return code, out.Response
}

// validateBody is the review of a CREATE of the registry ConfigMap
// edited, holding file.
func validateBody(t *testing.T, file string) []byte {
	t.Helper()
	cm := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"edited","namespace":"kpatch-system","labels":{"kpatch.dev/registry":"true"}},"data":{"scale.kpatch":%q}}`, file)
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "v", Operation: admissionv1.Create, Namespace: "kpatch-system", Name: "edited",
			Kind:   metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Object: runtime.RawExtension{Raw: []byte(cm)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestValidateRegistryIsServed: /validate-registry answers over the
// webhook's TLS server: a broken registry ConfigMap is denied with the
// position of its error, a good one allowed.
func TestValidateRegistryIsServed(t *testing.T) {
	s := startServer(t)
	code, resp := s.validate(t, "[deployment.web]\nreplcas: 3\n")
	if code != http.StatusOK || resp.Allowed || resp.UID != "v" || !strings.Contains(resp.Result.Message, "edited/scale.kpatch:2:1: ") {
		t.Errorf("a broken ConfigMap: %d %+v", code, resp)
	}
	if code, resp := s.validate(t, "[deployment.web]\nreplicas: 3\n"); code != http.StatusOK || !resp.Allowed {
		t.Errorf("a good ConfigMap: %d %+v", code, resp)
	}
}

// TestValidationsHaveABoundOfTheirOwn: validationsInFlight requests being
// served (slow bodies), the next validation is answered 429, and
// admissions are still served: a burst of validations never takes
// /mutate's places.
func TestValidationsHaveABoundOfTheirOwn(t *testing.T) {
	s := startServer(t, "--max-in-flight=100")
	for range validationsInFlight {
		s.slowConnectionTo(t, admission.ValidatePath)
	}
	waitFor(t, "the slow validations to hold every place", func() bool {
		code, _ := s.validate(t, "[deployment.web]\nreplicas: 3\n")
		return code == http.StatusTooManyRequests
	})
	s.wantPatched(t, "during-validations")
}
