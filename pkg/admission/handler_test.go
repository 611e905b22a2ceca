package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

const deploymentJSON = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},
"spec":{"replicas":1,"x-unknown":{"kept":true},"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}}}}`

func newHandler(t testing.TB, files map[string]string) *Handler {
	t.Helper()
	var c registry.Compiler
	built := c.Build([]corev1.ConfigMap{configMap("reg", files)}, nil)
	if len(built.Problems) != 0 {
		t.Fatalf("problems %v", built.Problems)
	}
	reg := built.Registry
	return &Handler{Registry: func() *registry.Registry { return reg }, RegistryNamespace: "kpatch-system", Metrics: metrics.NewMetrics(prometheus.NewRegistry())}
}

// patchOf decodes the JSONPatch of a response.
func patchOf(t testing.TB, resp admission.Response) []jsonpatch.Operation {
	t.Helper()
	if len(resp.Patch) == 0 {
		return nil
	}
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("patch type %v", resp.PatchType)
	}
	var ops []jsonpatch.Operation
	if err := json.Unmarshal(resp.Patch, &ops); err != nil {
		t.Fatalf("the patch is not JSON: %v\n%s", err, resp.Patch)
	}
	return ops
}

func request(op admissionv1.Operation, ns, raw string) admission.Request {
	var obj map[string]any
	_ = json.Unmarshal([]byte(raw), &obj)
	kind, _ := obj["kind"].(string)
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "1",
		Operation: op,
		Namespace: ns,
		Kind:      metav1.GroupVersionKind{Kind: kind},
		Object:    runtime.RawExtension{Raw: []byte(raw)},
	}}
}

func TestHandlerPatches(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nreplicas: 3\n[deployment.web.containers.name=app]\nimage.tag: \"1.27\"\n"})
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	ops := patchOf(t, resp)
	if !resp.Allowed || len(ops) != 2 {
		t.Fatalf("response %+v", resp)
	}
	got := map[string]string{}
	for _, p := range ops {
		got[p.Operation+" "+p.Path] = fmt.Sprint(p.Value)
	}
	want := map[string]string{"replace /spec/replicas": "3", "replace /spec/template/spec/containers/0/image": "nginx:1.27"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("patch %s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if n := testutil.ToFloat64(h.Metrics.Requests.WithLabelValues(metrics.ResultMutated)); n != 1 {
		t.Errorf("mutated requests %v", n)
	}
	if n := testutil.CollectAndCount(h.Metrics.ApplyDuration); n != 1 {
		t.Errorf("apply duration series %d", n)
	}
}

func TestHandlerLeavesAlone(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.*]\nreplicas: 3\n"})
	for name, req := range map[string]admission.Request{
		"registry namespace": request(admissionv1.Create, "kpatch-system", deploymentJSON),
		"kube-system":        request(admissionv1.Create, "kube-system", deploymentJSON),
		"update":             request(admissionv1.Update, "shop", deploymentJSON),
		"delete":             request(admissionv1.Delete, "shop", ""),
		"other kind":         request(admissionv1.Create, "shop", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`),
	} {
		resp := h.Handle(context.Background(), req)
		if !resp.Allowed || len(patchOf(t, resp)) != 0 || resp.PatchType != nil {
			t.Errorf("%s: patched: %+v", name, resp)
		}
	}
	h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	if resp := h.Handle(context.Background(), request(admissionv1.Update, "shop", deploymentJSON)); len(patchOf(t, resp)) != 1 {
		t.Errorf("update with UPDATE configured: %+v", resp)
	}
}

func TestHandlerUnchangedHasNoPatch(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nreplicas: 1\n"})
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if !resp.Allowed || len(patchOf(t, resp)) != 0 {
		t.Errorf("response %+v", resp)
	}
	if n := testutil.ToFloat64(h.Metrics.Requests.WithLabelValues(metrics.ResultUnchanged)); n != 1 {
		t.Errorf("unchanged requests %v", n)
	}
}

func TestHandlerFailingFile(t *testing.T) {
	files := map[string]string{
		"a.kpatch": "[deployment.web]\nreplicas: 5\ncontainers[name=missing].image: x\n",
		"b.kpatch": "[deployment.web]\nlabels.team: shop\n",
	}
	h := newHandler(t, files)
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if ops := patchOf(t, resp); !resp.Allowed || len(ops) != 1 || ops[0].Path != "/metadata/labels" {
		t.Fatalf("want only b's label: %+v", ops)
	}
	if len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "reg/a.kpatch:3: not applied: ") {
		t.Errorf("warnings %q", resp.Warnings)
	}
	h.Strict = true
	resp = h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if resp.Allowed || !strings.Contains(resp.Result.Message, "reg/a.kpatch:3") {
		t.Errorf("strict mode: %+v", resp)
	}
}

func TestHandlerKeepsUnknownFields(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nlabels.a: b\n"})
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	ops := patchOf(t, resp)
	for _, p := range ops {
		if strings.Contains(p.Path, "x-unknown") || p.Operation == "remove" {
			t.Errorf("the patch touches what it should not: %v", p)
		}
	}
	if len(ops) != 1 {
		t.Errorf("patches %v", ops)
	}
}

func TestHandlerBeforeSync(t *testing.T) {
	h := &Handler{Registry: func() *registry.Registry { return nil }, Metrics: metrics.NewMetrics(prometheus.NewRegistry())}
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if !resp.Allowed || resp.Patch != nil || len(resp.Warnings) != 1 || resp.Warnings[0] != "kpatch: not patched: the registry has not synced yet" {
		t.Errorf("before the first sync, --on-error allow: %+v", resp)
	}
	h.OnError = ErrorPolicyDeny
	resp = h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if resp.Allowed || resp.Result.Code != 503 || resp.Result.Message != "kpatch: the registry has not synced yet" {
		t.Errorf("before the first sync, --on-error deny: %+v", resp)
	}
	if n := testutil.ToFloat64(h.Metrics.InternalErrors.WithLabelValues(metrics.ReasonNotSynced)); n != 2 {
		t.Errorf("internal errors %v", n)
	}
}

func TestHandlerBadObject(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nlabels.a: b\n"})
	for _, raw := range []string{`{"kind":`, `null`, `[1]`} {
		req := request(admissionv1.Create, "shop", deploymentJSON)
		req.Object.Raw = []byte(raw)
		h.OnError = ErrorPolicyAllow
		if resp := h.Handle(context.Background(), req); !resp.Allowed || resp.Patch != nil || len(resp.Warnings) != 1 ||
			!strings.HasPrefix(resp.Warnings[0], "kpatch: not patched: decoding the object: ") {
			t.Errorf("%s, --on-error allow: %+v", raw, resp)
		}
		h.OnError = ErrorPolicyDeny
		if resp := h.Handle(context.Background(), req); resp.Allowed || resp.Result.Code != 400 ||
			!strings.HasPrefix(resp.Result.Message, "kpatch: decoding the object: ") {
			t.Errorf("%s, --on-error deny: %+v", raw, resp)
		}
	}
	if n := testutil.ToFloat64(h.Metrics.InternalErrors.WithLabelValues(metrics.ReasonDecode)); n != 6 {
		t.Errorf("internal errors %v", n)
	}
}

// TestHandlerSkipsWithoutDecoding: a request that no file may target, by
// its kind, namespace and name, is answered without decoding the object,
// so that even an object that does not decode is admitted unchanged
// without an internal error; one without a name (generateName) is decoded.
func TestHandlerSkipsWithoutDecoding(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[shop/deployment.web]\nreplicas: 3\n"})
	for _, c := range []struct{ ns, name string }{{"shop", "api"}, {"other", "web"}, {"other", ""}} {
		req := request(admissionv1.Create, c.ns, `{"not":"decoded"`)
		req.Kind.Kind, req.Name = "Deployment", c.name
		resp := h.Handle(context.Background(), req)
		if !resp.Allowed || len(resp.Patch) > 0 || len(resp.Warnings) > 0 {
			t.Errorf("%s/%s: %+v", c.ns, c.name, resp)
		}
	}
	req := request(admissionv1.Create, "shop", `{"not":"decoded"`)
	req.Kind.Kind = "Deployment"
	if resp := h.Handle(context.Background(), req); len(resp.Warnings) != 1 || testutil.ToFloat64(h.Metrics.InternalErrors.WithLabelValues(metrics.ReasonDecode)) != 1 {
		t.Errorf("a request without a name in a namespace a file targets is decoded: %+v", resp)
	}
}
