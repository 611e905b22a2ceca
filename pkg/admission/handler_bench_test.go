package admission

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
)

// benchHandler builds a handler over the benchmark registry of
// pkg/kpatch/testdata/bench (10 files, 40 entries) and the request of its
// Deployment.
func benchHandler(b *testing.B) (*Handler, *Handler, []byte) {
	files, _ := filepath.Glob("../kpatch/testdata/bench/*.kpatch")
	data := map[string]string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data[filepath.Base(f)] = string(src)
	}
	var c Compiler
	built := c.Build([]corev1.ConfigMap{configMap("bench", data)}, nil)
	reg := built.Registry
	if len(built.Problems) != 0 || reg.Active() != 10 {
		b.Fatalf("registry: %v", built.Problems)
	}
	empty := (&Compiler{}).Build(nil, nil).Registry
	raw, err := os.ReadFile("../kpatch/testdata/bench/deployment.json")
	if err != nil {
		b.Fatal(err)
	}
	return &Handler{Registry: func() *Registry { return reg }}, &Handler{Registry: func() *Registry { return empty }}, raw
}

// BenchmarkHandlePatched is one admission of a realistic Deployment
// through the 10-file registry: decode, apply, marshal, diff.
func BenchmarkHandlePatched(b *testing.B) {
	h, _, raw := benchHandler(b)
	req := request(admissionv1.Create, "shop", string(raw))
	b.ReportAllocs()
	for b.Loop() {
		if resp := h.Handle(context.Background(), req); len(resp.Patch) == 0 {
			b.Fatal("not patched")
		}
	}
}

// BenchmarkHandleEmpty is the same admission with an empty registry.
func BenchmarkHandleEmpty(b *testing.B) {
	_, h, raw := benchHandler(b)
	req := request(admissionv1.Create, "shop", string(raw))
	b.ReportAllocs()
	for b.Loop() {
		if resp := h.Handle(context.Background(), req); len(resp.Patch) != 0 {
			b.Fatal("patched")
		}
	}
}
