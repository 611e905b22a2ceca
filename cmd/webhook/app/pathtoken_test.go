package app

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/metrics"
)

// postTo posts body to path and returns the HTTP status and the answer.
func (s *testServer) postTo(t *testing.T, path string, body []byte) (int, string) {
	t.Helper()
	resp, err := s.client.Post("https://"+s.addr+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(answer)
}

// registryEditBody is the review of a CREATE of a registry ConfigMap that
// sets the field the registry's file sets, to another value: the answer
// of a check warns of the contested field.
func registryEditBody(t *testing.T) []byte {
	t.Helper()
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"edited","namespace":"kpatch-system","labels":{"kpatch.dev/registry":"true"}},"data":{"scale.kpatch":"[deployment.web]\nreplicas: 4\n"}}`
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "v", Operation: admissionv1.Create, Namespace: "kpatch-system", Name: "edited",
			Kind: metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Object: runtime.RawExtension{Raw: []byte(cm)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestForgedReviewsWithoutThePathTokenGetNothing: with the default flags,
// a review posted to /mutate or /validate-registry, or to either with
// another token, is refused with 403 before it is read: no patch, no
// warning, nothing handled (no request counted, no validation), each
// refusal counted by reason. At the path with the token, the same
// reviews are answered.
func TestForgedReviewsWithoutThePathTokenGetNothing(t *testing.T) {
	s := startServer(t)
	if s.token == "" {
		t.Fatal("no path token with the default flags")
	}
	review, edit := reviewBody(t, "forged"), registryEditBody(t)
	for _, c := range []struct {
		path string
		body []byte
	}{
		{admission.MutatePath, review},
		{admission.MutatePath + "/", review},
		{admission.MutatePath + "/not-the-token-0123456789abcdefghijkl", review},
		{admission.ValidatePath, edit},
		{admission.ValidatePath + "/" + strings.ToUpper(s.token), edit},
	} {
		code, answer := s.postTo(t, c.path+"?timeout=10s", c.body)
		if code != http.StatusForbidden || strings.Contains(answer, `"response"`) || strings.Contains(answer, "replicas") {
			t.Errorf("%s: %d %q; want 403 and nothing of the registry", c.path, code, answer)
		}
	}
	handled := testutil.ToFloat64(s.metrics.Requests.WithLabelValues(metrics.ResultMutated)) + testutil.ToFloat64(s.metrics.Requests.WithLabelValues(metrics.ResultUnchanged))
	for _, r := range []string{metrics.ValidationAccepted, metrics.ValidationWarned, metrics.ValidationRefused, metrics.ValidationUnchecked, metrics.ValidationSkipped} {
		handled += testutil.ToFloat64(s.metrics.RegistryValidations.WithLabelValues(r))
	}
	if handled != 0 {
		t.Errorf("%v forged reviews were handled", handled)
	}
	for reason, want := range map[string]float64{metrics.RejectPathTokenMissing: 3, metrics.RejectPathTokenWrong: 2} {
		if got := testutil.ToFloat64(s.metrics.RejectedRequests.WithLabelValues(reason)); got != want {
			t.Errorf("kpatch_admission_requests_rejected_total{reason=%q} = %v, want %v", reason, got, want)
		}
	}
	// the API server's calls, at the paths with the token
	s.wantPatched(t, "with-token")
	if code, answer := s.postTo(t, s.path(admission.ValidatePath)+"?timeout=10s", edit); code != http.StatusOK || !strings.Contains(answer, "spec.replicas: set by 2 files") {
		t.Errorf("a validation with the token: %d %.300s", code, answer)
	}
}

// TestPathTokenOff: --path-token-secret="" serves the review paths to
// any caller, for setups that authenticate the API server otherwise.
func TestPathTokenOff(t *testing.T) {
	s := startServer(t, "--path-token-secret=")
	if code, answer := s.postTo(t, admission.MutatePath+"?timeout=10s", reviewBody(t, "open")); code != http.StatusOK || !strings.Contains(answer, `"patch"`) {
		t.Errorf("without a path token: %d %.300s", code, answer)
	}
}

// TestPathTokenSecretFlag: the default Secret, and a name that cannot be
// a Secret's refused.
func TestPathTokenSecretFlag(t *testing.T) {
	if o := parse(t); o.PathTokenSecret != "kpatch-webhook-path-token" {
		t.Errorf("default %q", o.PathTokenSecret)
	}
	if err := parse(t, "--path-token-secret=Not_A_Name").Validate(); err == nil || !strings.Contains(err.Error(), "--path-token-secret:") {
		t.Errorf("a bad name: %v", err)
	}
}
