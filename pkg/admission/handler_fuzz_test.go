package admission

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	jsonpatchv5 "github.com/evanphx/json-patch/v5"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/metrics"
)

// fuzzFiles are a registry of every kind of entry on Deployments and
// Pods: field entries (scalars, selectors, insertions, deletion), a
// strategic merge patch and a JSON merge patch.
var fuzzFiles = map[string]string{
	"a-field.kpatch": "[deployment.*]\nreplicas: 3\nlabels.team: a\n[deployment.*.containers.name=app]\nimage.tag: \"1.27\"\nresources.limits.cpu: 500m\n" +
		"[deployment.*.tolerations[-]]\nkey: x\noperator: Exists\n[pod.*]\nannotations.x: \"y\"\n[pod.*.containers.*]\nimagePullPolicy: Always\n",
	"b-strategic.yaml": "- target: deployment.*\n  type: strategic\n  patch:\n    spec:\n      template:\n        spec:\n          containers:\n          - name: envoy\n            image: envoy:1\n" +
		"- target: pod.*\n  type: strategic\n  patch:\n    spec:\n      containers:\n      - name: app\n        env:\n        - name: A\n          value: b\n",
	"c-merge.yaml":    "- target: deployment.*\n  type: merge\n  patch:\n    metadata:\n      annotations:\n        m: \"1\"\n    spec:\n      paused: null\n",
	"d-delete.kpatch": "[deployment.*]\nannotations.gone[delete]:\n",
}

// fuzzReview is an AdmissionReview of a CREATE of obj.
func fuzzReview(kind, name string, obj string) []byte {
	return []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"f","kind":{"group":"","version":"v1","kind":"` + kind +
		`"},"name":"` + name + `","namespace":"shop","operation":"CREATE","object":` + obj + `}}`)
}

// FuzzHandle sends arbitrary AdmissionReview bytes through the Webhook
// and the Handler with field, strategic and merge files. Whatever the
// bytes, no panic escapes a file (kpatch_panics_total{scope="request"}
// stays 0), the answer is an AdmissionReview with a response, and a
// JSONPatch, when there is one, applies to the object and gives what
// kpatch.Apply gives.
func FuzzHandle(f *testing.F) {
	bench, err := os.ReadFile("../kpatch/testdata/bench/deployment.json")
	if err != nil {
		f.Fatal(err)
	}
	long := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[` + strings.Repeat(`{"name":"c"},`, 500) + `{"name":"app"}]}}`
	for _, seed := range [][]byte{
		fuzzReview("Deployment", "web", string(bench)),
		fuzzReview("Deployment", "", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generateName":"w-"},"spec":{"template":{"spec":{"containers":[null]}}}}`),
		fuzzReview("Deployment", "web", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":"x","template":{"spec":{"containers":"app","tolerations":{}}}}}`),
		fuzzReview("Deployment", "web", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":[],"spec":null}`),
		fuzzReview("Deployment", "web", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","annotations":{"gone":"1"}},"spec":{"paused":true,"replicas":1e400}}`),
		fuzzReview("Pod", "p", long),
		fuzzReview("Pod", "p", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"app","env":[null,{"name":"A"}]},null]}}`),
		fuzzReview("Pod", "p", `null`),
		[]byte(`{"request":{"operation":"CREATE","object":{}}}`),
		[]byte(`{`),
	} {
		f.Add(seed)
	}
	h := &fuzzHandler{}
	h.Handler = newHandler(f, fuzzFiles)
	h.wh = &Webhook{Webhook: admission.Webhook{Handler: h.Handler}}
	f.Fuzz(h.check)
}

type fuzzHandler struct {
	*Handler
	wh *Webhook
}

func (h *fuzzHandler) check(t *testing.T, body []byte) {
	r := httptest.NewRequest(http.MethodPost, "/mutate", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.wh.ServeHTTP(w, r)
	if n := testutil.ToFloat64(h.Metrics.Panics.WithLabelValues(metrics.PanicScopeRequest)); n > 0 {
		t.Fatalf("a panic outside the files")
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.Response == nil {
		t.Fatalf("not an AdmissionReview with a response (%v): %s", err, w.Body.String())
	}
	// The review is read as the API server reads JSON (utiljson): field names are
	// case-sensitive (encoding/json would take "reQuest" for "request",
	// which no API server sends and the webhook rightly ignores).
	var in admissionv1.AdmissionReview
	if utiljson.Unmarshal(body, &in) != nil || in.Request == nil {
		return
	}
	if out.Response.UID != in.Request.UID {
		t.Fatalf("UID %q, want %q", out.Response.UID, in.Request.UID)
	}
	if len(out.Response.Patch) > 0 {
		h.checkPatch(t, in.Request, out.Response)
	}
}

// checkPatch applies the JSONPatch to the object and compares the result
// with kpatch.Apply's when every file applied (no warning).
func (h *fuzzHandler) checkPatch(t *testing.T, req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
	jp, err := jsonpatchv5.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatalf("the JSONPatch does not decode: %v\n%s", err, resp.Patch)
	}
	patched, err := jp.Apply(req.Object.Raw)
	if err != nil {
		t.Fatalf("the JSONPatch does not apply: %v\n%s", err, resp.Patch)
	}
	if len(resp.Warnings) > 0 {
		return // some file did not apply: Apply would include it
	}
	var obj, got, want map[string]any
	if utiljson.Unmarshal(req.Object.Raw, &obj) != nil || utiljson.Unmarshal(patched, &got) != nil {
		t.Fatalf("undecodable: %s", patched)
	}
	var patches []*kpatch.Patch
	for _, f := range h.Registry().Candidates(req.Kind.Kind, req.Namespace, req.Name) {
		patches = append(patches, f.(apply.PatchFile).Patch)
	}
	applied, err := kpatch.Apply(obj, patches, kpatch.ApplyOptions{Namespace: req.Namespace})
	if err != nil {
		t.Fatalf("Apply fails where the handler did not: %v", err)
	}
	encoded, err := json.Marshal(applied)
	if err != nil || utiljson.Unmarshal(encoded, &want) != nil {
		t.Fatalf("Apply's result does not encode: %v", err)
	}
	// numbers compared as JSON values: 1e2 is 100 either way
	renormalized, _ := json.Marshal(got)
	got = nil
	_ = utiljson.Unmarshal(renormalized, &got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the JSONPatch gives\n%s\nApply gives\n%s", patched, encoded)
	}
}
