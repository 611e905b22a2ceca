package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

func benchDeployment(t *testing.T) []byte {
	t.Helper()
	d, err := os.ReadFile(filepath.Join("..", "..", deploymentFile))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// reviewOf is the AdmissionReview of a create of object, as the API
// server encodes it, with the request's uid.
func reviewOf(t *testing.T, uid types.UID, object []byte) []byte {
	t.Helper()
	r, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: uid, Kind: metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Name: deploymentName, Namespace: "bench-fixed", Operation: admissionv1.Create,
			Object: runtime.RawExtension{Raw: object},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReviewUID(t *testing.T) {
	// the object has a uid of its own, which must not be taken for the request's
	object := bytes.Replace(benchDeployment(t), []byte(`"metadata": {`), []byte(`"metadata": {"uid": "the-object",`), 1)
	if bytes.Equal(object, benchDeployment(t)) {
		t.Fatal("the object has no metadata to put a uid in")
	}
	for _, c := range []struct {
		name   string
		review []byte
		uid    string
		ok     bool
	}{
		{"a review", reviewOf(t, "705ab4f5-6393-11e8-b7cc-42010a800002", object), "705ab4f5-6393-11e8-b7cc-42010a800002", true},
		{"an escaped quote", reviewOf(t, `a"b`, object), `a\"b`, true},
		{"no uid", []byte(`{"kind":"AdmissionReview","request":{"kind":{}}}`), "", false},
		{"an unterminated uid", []byte(`{"request":{"uid":"abc`), "", false},
	} {
		uid, ok := reviewUID(c.review)
		if string(uid) != c.uid || ok != c.ok {
			t.Errorf("%s: got %q, %v; want %q, %v", c.name, uid, ok, c.uid, c.ok)
		}
	}
}

// TestFixedWebhookAnswer holds the fixed webhook's answer to what the API
// server needs: a v1 AdmissionReview with the request's uid, allowed, and
// a JSONPatch that makes the change on the benchmark Deployment.
func TestFixedWebhookAnswer(t *testing.T) {
	deployment := benchDeployment(t)
	i, err := containerIndex(deployment)
	if err != nil {
		t.Fatal(err)
	}
	wh := newFixedWebhook(fixedPatch(i))
	rec := httptest.NewRecorder()
	wh.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mutate", bytes.NewReader(reviewOf(t, `a"b`, deployment))))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("got %d, %q: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	var answer admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	resp := answer.Response
	if answer.APIVersion != "admission.k8s.io/v1" || answer.Kind != "AdmissionReview" || resp == nil ||
		resp.UID != `a"b` || !resp.Allowed || resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("not an answer the API server takes: %s", rec.Body)
	}
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := patch.Apply(deployment)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkChange(patched, true); err != nil {
		t.Error(err)
	}

	rec = httptest.NewRecorder()
	wh.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mutate", strings.NewReader(`{"request":{}}`)))
	if rec.Code != http.StatusBadRequest {
		t.Errorf("a review without uid: got %d, want 400", rec.Code)
	}
}

func TestContainerIndexMissing(t *testing.T) {
	if _, err := containerIndex([]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"other"}]}}}}`)); err == nil {
		t.Error("no container app: got no error")
	}
}
