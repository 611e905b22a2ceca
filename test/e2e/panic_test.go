package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestNullItemPanicIsAWarning posts, straight to the webhook's port, a
// Deployment whose container list holds a null item (the API server
// itself never sends one) to a registry with a strategic merge patch of
// the containers, which panics in k8s.io/apimachinery's strategicpatch.
// The answer is HTTP 200, the object admitted with the other file's
// change and a warning: not a 500.
func TestNullItemPanicIsAWarning(t *testing.T) {
	registry(t, "panics", map[string]string{
		"a-sidecar.yaml": "- target: nullitem/deployment.with-null\n  type: strategic\n  patch:\n    spec:\n      template:\n        spec:\n          containers:\n          - name: envoy\n            image: envoy\n",
		"b-label.kpatch": "[nullitem/deployment.with-null]\nlabels.b: applied\n",
	})
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "null-item", Operation: admissionv1.Create, Namespace: "nullitem", Name: "with-null",
			Kind:   metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Object: runtime.RawExtension{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"with-null","namespace":"nullitem"},"spec":{"template":{"spec":{"containers":[null]}}}}`)},
		},
	}
	body, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	var got admissionv1.AdmissionReview
	eventually(t, 10*time.Second, func() error {
		url := fmt.Sprintf("https://127.0.0.1:%d%s?timeout=3s", webhook.Port, webhook.Path("/mutate"))
		resp, err := env.HTTPClient().Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %s", resp.Status)
		}
		got = admissionv1.AdmissionReview{}
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			return err
		}
		if got.Response == nil || !strings.Contains(string(got.Response.Patch), "/metadata/labels") {
			return fmt.Errorf("not patched yet: %+v", got.Response)
		}
		return nil
	})
	r := got.Response
	if !r.Allowed || r.Result != nil && r.Result.Code >= 400 {
		t.Errorf("denied: %+v", r.Result)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "panics/a-sidecar.yaml: not applied: it panicked on the object") {
		t.Errorf("warnings %q", r.Warnings)
	}
	if strings.Contains(string(r.Patch), "envoy") {
		t.Errorf("the panicking file's change leaked: %s", r.Patch)
	}
	// the log reaches the test through a pipe, after the answer
	eventually(t, 5*time.Second, func() error {
		if !strings.Contains(logs.String(), "recovered a panic of a patch file") {
			return fmt.Errorf("the panic was not logged")
		}
		return nil
	})
}
