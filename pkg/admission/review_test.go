package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// answered is what a test compares of an HTTP answer to a review.
type answered struct {
	Status     int
	APIVersion string
	Kind       string
	UID        string
	Allowed    bool
	Code       int32
	Patch      string
	Warnings   int
}

func serveReview(h http.Handler, contentType string, body []byte) answered {
	r := httptest.NewRequest(http.MethodPost, "/mutate", bytes.NewReader(body))
	if body == nil {
		r.Body = http.NoBody
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var out struct {
		metav1.TypeMeta
		Response *admissionv1.AdmissionResponse
	}
	a := answered{Status: w.Code}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.Response == nil {
		a.Kind = "undecodable: " + w.Body.String()
		return a
	}
	a.APIVersion, a.Kind, a.UID, a.Allowed = out.APIVersion, out.Kind, string(out.Response.UID), out.Response.Allowed
	a.Patch, a.Warnings = string(out.Response.Patch), len(out.Response.Warnings)
	if out.Response.Result != nil {
		a.Code = out.Response.Result.Code
	}
	return a
}

// panicking panics on every request.
type panicking struct{}

func (panicking) Handle(context.Context, admission.Request) admission.Response { panic("boom") }

// TestWebhookAnswersAsControllerRuntime holds the Webhook to
// controller-runtime's admission.Webhook: the same answers to the same
// bodies, good and bad, in both AdmissionReview versions.
func TestWebhookAnswersAsControllerRuntime(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nreplicas: 3\n"})
	reviewOf := func(apiVersion string) []byte {
		return []byte(`{"apiVersion":"` + apiVersion + `","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"apps","version":"v1","kind":"Deployment"},` +
			`"resource":{"group":"apps","version":"v1","resource":"deployments"},"name":"web","namespace":"shop","operation":"CREATE",` +
			`"userInfo":{"username":"x"},"object":` + deploymentJSON + `}}`)
	}
	for name, c := range map[string]struct {
		handler     admission.Handler
		contentType string
		body        []byte
	}{
		"v1":                {h, "application/json", reviewOf("admission.k8s.io/v1")},
		"v1beta1":           {h, "application/json", reviewOf("admission.k8s.io/v1beta1")},
		"no type":           {h, "application/json", bytes.Replace(reviewOf("x"), []byte(`"apiVersion":"x","kind":"AdmissionReview",`), nil, 1)},
		"unknown type":      {h, "application/json", reviewOf("example.com/v1")},
		"no body":           {h, "application/json", nil},
		"wrong type":        {h, "text/plain", reviewOf("admission.k8s.io/v1")},
		"not JSON":          {h, "application/json", []byte(`{"apiVersion":`)},
		"no request":        {h, "application/json", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`)},
		"no object":         {h, "application/json", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u2","operation":"CREATE"}}`)},
		"object not object": {h, "application/json", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u3","operation":"CREATE","kind":{"kind":"Deployment"},"object":[1]}}`)},
		"panic":             {panicking{}, "application/json", reviewOf("admission.k8s.io/v1")},
		"too large":         {h, "application/json", append(reviewOf("admission.k8s.io/v1"), bytes.Repeat([]byte(" "), MaxReviewSize)...)},
	} {
		t.Run(name, func(t *testing.T) {
			want := serveReview(&admission.Webhook{Handler: c.handler, LogConstructor: LogConstructor}, c.contentType, c.body)
			got := serveReview(&Webhook{Webhook: admission.Webhook{Handler: c.handler, LogConstructor: LogConstructor}}, c.contentType, c.body)
			if want.APIVersion == "" {
				// controller-runtime answers errors before decoding untyped
				want.APIVersion, want.Kind = "admission.k8s.io/v1", "AdmissionReview"
			}
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if name == "v1" && !strings.Contains(got.Patch, "/spec/replicas") {
				t.Errorf("no patch: %+v", got)
			}
		})
	}
}
