package admission

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/registry"
)

// benchmarkHandleConditioned is BenchmarkHandlePatched with a condition
// that holds on each of the 10 files: the difference, divided by 10, is
// what one condition costs a request.
func benchmarkHandleConditioned(b *testing.B, when string) {
	files, _ := filepath.Glob("../kpatch/testdata/bench/*.kpatch")
	data := map[string]string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data[filepath.Base(f)] = "# kpatch:when: " + when + "\n" + string(src)
	}
	var c registry.Compiler
	built := c.Build([]corev1.ConfigMap{configMap("bench", data)}, nil)
	if len(built.Problems) != 0 || built.Registry.Active() != 10 {
		b.Fatalf("registry: %v", built.Problems)
	}
	reg := built.Registry
	h := &Handler{Registry: func() *registry.Registry { return reg }}
	raw, err := os.ReadFile("../kpatch/testdata/bench/deployment.json")
	if err != nil {
		b.Fatal(err)
	}
	req := request(admissionv1.Create, "shop", string(raw))
	req.Name = "web"
	req.UserInfo = authenticationv1.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}}
	b.ReportAllocs()
	for b.Loop() {
		if resp := h.Handle(context.Background(), req); len(resp.Patch) == 0 || !resp.Allowed || len(resp.Warnings) > 0 {
			b.Fatalf("not patched: %+v", resp)
		}
	}
}

// BenchmarkHandleConditioned reads the object: 10 conditions a request.
func BenchmarkHandleConditioned(b *testing.B) {
	benchmarkHandleConditioned(b, "object.spec.replicas > 1")
}

// BenchmarkHandleConditionedRequest reads the request (converted once a
// request) and the object's labels.
func BenchmarkHandleConditionedRequest(b *testing.B) {
	benchmarkHandleConditioned(b, "!request.userInfo.username.startsWith('system:serviceaccount:') && has(object.metadata.labels)")
}
