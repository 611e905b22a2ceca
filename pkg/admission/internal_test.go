package admission

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

func TestPanicOutsideAFileFollowsOnError(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nreplicas: 3\n"})
	h.Registry = func() *registry.Registry { panic("registry broke") }
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if !resp.Allowed || resp.Patch != nil || len(resp.Warnings) != 1 || resp.Warnings[0] != "kpatch: not patched: panic: registry broke" {
		t.Errorf("--on-error allow: %+v", resp)
	}
	h.OnError = ErrorPolicyDeny
	resp = h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if resp.Allowed || resp.Result.Code != 500 || resp.Result.Message != "kpatch: panic: registry broke" {
		t.Errorf("--on-error deny: %+v", resp)
	}
	if n := testutil.ToFloat64(h.Metrics.Panics.WithLabelValues(metrics.PanicScopeRequest)); n != 2 {
		t.Errorf("request panics %v", n)
	}
	if n := testutil.ToFloat64(h.Metrics.Requests.WithLabelValues(metrics.ResultError)); n != 2 {
		t.Errorf("error requests %v", n)
	}
}

func TestEndedContextFollowsOnError(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nreplicas: 3\n"})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	for name, c := range map[string]struct {
		ctx  context.Context
		code int32
		text string
	}{
		"cancelled":         {cancelled, 503, "context canceled"},
		"deadline exceeded": {past, 504, "context deadline exceeded"},
	} {
		h.OnError = ErrorPolicyAllow
		resp := h.Handle(c.ctx, request(admissionv1.Create, "shop", deploymentJSON))
		if !resp.Allowed || resp.Patch != nil || len(resp.Warnings) != 1 ||
			resp.Warnings[0] != "kpatch: not patched: the request ended before the object was patched: "+c.text {
			t.Errorf("%s, --on-error allow: %+v", name, resp)
		}
		h.OnError = ErrorPolicyDeny
		resp = h.Handle(c.ctx, request(admissionv1.Create, "shop", deploymentJSON))
		if resp.Allowed || resp.Result.Code != c.code || !strings.HasSuffix(resp.Result.Message, c.text) {
			t.Errorf("%s, --on-error deny: %+v", name, resp)
		}
	}
	if n := testutil.ToFloat64(h.Metrics.InternalErrors.WithLabelValues(metrics.ReasonCanceled)); n != 4 {
		t.Errorf("internal errors %v", n)
	}
}

// TestContextEndingBetweenFilesStops: the context is checked before each
// file, so a request whose deadline passes while files apply stops there.
func TestContextEndingBetweenFilesStops(t *testing.T) {
	h := newHandler(t, map[string]string{"a.kpatch": "[deployment.web]\nreplicas: 3\n", "b.kpatch": "[deployment.web]\nlabels.b: c\n"})
	ctx, cancel := context.WithCancel(context.Background())
	reg := h.Registry()
	calls := 0
	h.Registry = func() *registry.Registry { calls++; cancel(); return reg } // ends while the request is served
	resp := h.Handle(ctx, request(admissionv1.Create, "shop", deploymentJSON))
	if calls != 1 || !resp.Allowed || resp.Patch != nil || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "context canceled") {
		t.Errorf("%+v", resp)
	}
}

func TestParseErrorPolicy(t *testing.T) {
	for _, s := range []string{"allow", "deny"} {
		if p, err := ParseErrorPolicy(s); err != nil || string(p) != s {
			t.Errorf("%s: %v %v", s, p, err)
		}
	}
	for _, s := range []string{"", "Allow", "ignore"} {
		if _, err := ParseErrorPolicy(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestPanicAfterDecodingFollowsOnError panics once the object is decoded
// (in the Namespace lookup of a file's ${namespace...} binding): the
// request is answered as OnError says, as before the object is decoded,
// and the maps the object holds are not lent again while the panic is
// logged.
func TestPanicAfterDecodingFollowsOnError(t *testing.T) {
	h := newHandler(t, map[string]string{"f.kpatch": "[deployment.web]\nmetadata.labels.team: ${namespace.labels.team}\n"})
	h.Namespaces = informed.NamespacesFunc(func(string) (*corev1.Namespace, bool) { panic("namespaces broke") })
	for range 3 {
		resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
		if !resp.Allowed || resp.Patch != nil || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "namespaces broke") {
			t.Fatalf("--on-error allow: %+v", resp)
		}
	}
	if n := testutil.ToFloat64(h.Metrics.Panics.WithLabelValues(metrics.PanicScopeRequest)); n != 3 {
		t.Errorf("request panics %v", n)
	}
}
