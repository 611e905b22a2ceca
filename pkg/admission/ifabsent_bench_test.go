package admission

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// BenchmarkHandleIfAbsent is BenchmarkHandlePatched with the benchmark
// registry as written (plain) and with `?` (set if absent) on every entry
// that may carry one (ifabsent): the cost of deciding field by field
// whether the object holds a value.
func BenchmarkHandleIfAbsent(b *testing.B) {
	files, _ := filepath.Glob("../kpatch/testdata/bench/*.kpatch")
	plain, marked := map[string]string{}, map[string]string{}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		f, err := kpatch.Parse(filepath.Base(name), src)
		if err != nil {
			b.Fatal(err)
		}
		plain[filepath.Base(name)] = f.String()
		for _, s := range f.Sections {
			for _, e := range s.Entries {
				first, last := e.Key[0].Kind, e.Key[len(e.Key)-1].Kind
				e.IfAbsent = !e.Value.Required && first != kpatch.Delete && (last == kpatch.Field || last == kpatch.Index)
			}
		}
		marked[filepath.Base(name)] = f.String()
	}
	raw, err := os.ReadFile("../kpatch/testdata/bench/deployment.json")
	if err != nil {
		b.Fatal(err)
	}
	req := request(admissionv1.Create, "shop", string(raw))
	for _, tt := range []struct {
		name string
		data map[string]string
	}{{"plain", plain}, {"ifabsent", marked}} {
		b.Run(tt.name, func(b *testing.B) {
			built := (&registry.Compiler{}).Build([]corev1.ConfigMap{configMap("bench", tt.data)}, nil)
			if len(built.Problems) != 0 || built.Registry.Active() != len(files) {
				b.Fatalf("registry: %v", built.Problems)
			}
			h := &Handler{Registry: func() *registry.Registry { return built.Registry }}
			b.ReportAllocs()
			for b.Loop() {
				if resp := h.Handle(context.Background(), req); len(resp.Patch) == 0 || !resp.Allowed {
					b.Fatal("not patched")
				}
			}
		})
	}
}
