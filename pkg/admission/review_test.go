package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/prometheus/client_golang/prometheus/testutil"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/metrics"
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

// bigAnswer answers every request with a JSONPatch of 4 KiB.
type bigAnswer struct{}

func (bigAnswer) Handle(_ context.Context, req admission.Request) admission.Response {
	ops := strings.Repeat(`{"op":"add","path":"/metadata/labels/a","value":"b"},`, 80)
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{UID: req.UID, Allowed: true,
		Patch: []byte("[" + strings.TrimSuffix(ops, ",") + "]"), PatchType: ptr.To(admissionv1.PatchTypeJSONPatch)}}
}

// TestWebhookAnswersWithItsLength: an answer, even one past net/http's
// buffer, says its length and is sent whole, not in chunks (each a write
// to the connection).
func TestWebhookAnswersWithItsLength(t *testing.T) {
	srv := httptest.NewServer(&Webhook{Webhook: admission.Webhook{Handler: bigAnswer{}, LogConstructor: LogConstructor}})
	defer srv.Close()
	body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","operation":"CREATE"}}`
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 4096 || resp.ContentLength != int64(len(got)) || len(resp.TransferEncoding) > 0 {
		t.Errorf("answer of %d bytes: Content-Length %d, Transfer-Encoding %v", len(got), resp.ContentLength, resp.TransferEncoding)
	}
}

// TestWebhookAnswersAsControllerRuntime holds the Webhook to
// controller-runtime's admission.Webhook: the same answers to the same
// bodies, good and bad, in both AdmissionReview versions, except where
// kpatch answers with the request's uid what controller-runtime answers
// without (TestWebhookAnswersWithTheUID).
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
			if name == "too large" {
				// controller-runtime answers 413 without the uid, which
				// the API server takes for a failed call; kpatch answers
				// with it, by --on-error (allow: admitted unpatched, with
				// a warning)
				want.UID, want.Allowed, want.Code, want.Warnings = "u1", true, http.StatusOK, 1
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

// TestWebhookAnswersWithTheUID: a review whose request's uid can be read
// is answered with it, whatever else fails (an object nested deeper than
// the decoders' limits, a body too large or cut short), by the Handler's
// --on-error policy, counted as a decode error, in the review's own
// version; the API server applies its failurePolicy only to an answer
// without the uid. A body without a readable uid gets controller-runtime's
// answer.
func TestWebhookAnswersWithTheUID(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	object := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":` + deep + `}`
	fields := `"kind":{"group":"apps","version":"v1","kind":"Deployment"},"resource":{"group":"apps","version":"v1","resource":"deployments"},` +
		`"name":"web","namespace":"shop","operation":"CREATE","userInfo":{"username":"x"}`
	envelope := func(apiVersion, request string) []byte {
		return []byte(`{"apiVersion":"` + apiVersion + `","kind":"AdmissionReview","request":{` + request + `}}`)
	}
	for name, c := range map[string]struct {
		body       []byte
		cutAfter   int // read error after this many bytes, if > 0
		apiVersion string
		uid        string
		code       int32 // the denial's code with --on-error=deny
	}{
		"object too deep":          {body: envelope("admission.k8s.io/v1", `"uid":"u1",`+fields+`,"object":`+object), uid: "u1", code: http.StatusBadRequest},
		"uid after a deep object":  {body: envelope("admission.k8s.io/v1", fields+`,"object":`+object+`,"uid":"u2"`), uid: "u2", code: http.StatusBadRequest},
		"v1beta1":                  {body: envelope("admission.k8s.io/v1beta1", `"uid":"u3",`+fields+`,"object":`+object), apiVersion: "admission.k8s.io/v1beta1", uid: "u3", code: http.StatusBadRequest},
		"too large":                {body: envelope("admission.k8s.io/v1", `"uid":"u4",`+fields+`,"object":{"data":"`+strings.Repeat("x", MaxReviewSize)+`"}`), uid: "u4", code: http.StatusRequestEntityTooLarge},
		"cut short":                {body: envelope("admission.k8s.io/v1", `"uid":"u5",`+fields+`,"object":`+deploymentJSON), cutAfter: 300, uid: "u5", code: http.StatusBadRequest},
		"not JSON after the uid":   {body: envelope("admission.k8s.io/v1", `"uid":"u6",`+fields+`,"object":{"a":tru}`), uid: "u6", code: http.StatusBadRequest},
		"no uid":                   {body: envelope("admission.k8s.io/v1", fields+`,"object":`+object)},
		"uid not a string":         {body: envelope("admission.k8s.io/v1", `"uid":{"x":1},`+fields+`,"object":`+object)},
		"not JSON":                 {body: []byte(`{"apiVersion":`)},
		"cut short before the uid": {body: envelope("admission.k8s.io/v1", fields+`,"uid":"u7"`), cutAfter: 100},
		"request not an object":    {body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":["uid","u8"],"x":` + deep + `}`)},
		"uid outside the request":  {body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","uid":"u9","x":` + deep + `}`)},
		"review not an object":     {body: []byte(`["uid","u10",` + deep + `]`)},
		"uid unterminated":         {body: envelope("admission.k8s.io/v1", `"uid":"u11`)},
	} {
		for _, policy := range []ErrorPolicy{ErrorPolicyAllow, ErrorPolicyDeny} {
			t.Run(name+"/"+string(policy), func(t *testing.T) {
				h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nreplicas: 3\n"})
				h.OnError = policy
				r := httptest.NewRequest(http.MethodPost, "/mutate", bytes.NewReader(c.body))
				if c.cutAfter > 0 {
					r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(c.body[:c.cutAfter]), iotest.ErrReader(os.ErrDeadlineExceeded)))
				}
				r.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				(&Webhook{Webhook: admission.Webhook{Handler: h, LogConstructor: LogConstructor}}).ServeHTTP(w, r)
				got := decodeAnswer(t, w)
				want := answered{Status: http.StatusOK, APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview", UID: c.uid}
				if c.apiVersion != "" {
					want.APIVersion = c.apiVersion
				}
				decodeErrors := 0.0
				switch {
				case c.uid == "":
					// controller-runtime's answer: a 400 denial without a uid
					want.Code = http.StatusBadRequest
				case policy == ErrorPolicyAllow:
					want.Allowed, want.Code, want.Warnings, decodeErrors = true, http.StatusOK, 1, 1
				default:
					want.Code, decodeErrors = c.code, 1
				}
				if got != want {
					t.Errorf("got  %+v\nwant %+v", got, want)
				}
				if n := testutil.ToFloat64(h.Metrics.InternalErrors.WithLabelValues(metrics.ReasonDecode)); n != decodeErrors {
					t.Errorf("decode errors counted: %v, want %v", n, decodeErrors)
				}
				if n := testutil.ToFloat64(h.Metrics.Requests.WithLabelValues(metrics.ResultError)); n != decodeErrors {
					t.Errorf("requests counted as errors: %v, want %v", n, decodeErrors)
				}
			})
		}
	}
}

// decodeAnswer decodes a recorded answer to a review.
func decodeAnswer(t *testing.T, w *httptest.ResponseRecorder) answered {
	t.Helper()
	var out struct {
		metav1.TypeMeta
		Response *admissionv1.AdmissionResponse
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.Response == nil {
		t.Fatalf("answer %d %.300s: %v", w.Code, w.Body.Bytes(), err)
	}
	a := answered{Status: w.Code, APIVersion: out.APIVersion, Kind: out.Kind, UID: string(out.Response.UID), Allowed: out.Response.Allowed}
	a.Patch, a.Warnings = string(out.Response.Patch), len(out.Response.Warnings)
	if out.Response.Result != nil {
		a.Code = out.Response.Result.Code
	}
	return a
}

// TestHandlerPassesSubresources: a request on a subresource (status,
// scale) is admitted unpatched, without decoding its object, though a file
// targets the object itself; the same request on the object is patched.
func TestHandlerPassesSubresources(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nreplicas: 3\n"})
	h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	for _, sub := range []string{"", "status", "scale"} {
		for _, op := range h.Operations {
			req := request(op, "shop", deploymentJSON)
			req.Name, req.SubResource = "web", sub
			resp := h.Handle(context.Background(), req)
			patched := len(patchOf(t, resp)) > 0
			if !resp.Allowed || patched != (sub == "") || len(resp.Warnings) > 0 {
				t.Errorf("%s subresource %q: allowed %v, patched %v, warnings %v", op, sub, resp.Allowed, patched, resp.Warnings)
			}
		}
	}
}
