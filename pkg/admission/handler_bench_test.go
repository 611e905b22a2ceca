package admission

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/registry"
)

// benchHandler builds a handler over the benchmark registry of
// pkg/kpatch/testdata/bench (10 files, 40 entries) and the request of its
// Deployment.
func benchHandler(b testing.TB) (*Handler, *Handler, []byte) {
	return benchHandlerWith(b, nil)
}

// benchHandlerWith is benchHandler with more ConfigMaps in the registry.
func benchHandlerWith(b testing.TB, more []corev1.ConfigMap) (*Handler, *Handler, []byte) {
	files, _ := filepath.Glob("../kpatch/testdata/bench/*.kpatch")
	data := map[string]string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data[filepath.Base(f)] = string(src)
	}
	var c registry.Compiler
	built := c.Build(append([]corev1.ConfigMap{configMap("bench", data)}, more...), nil)
	reg := built.Registry
	if len(built.Problems) != 0 || reg.Active() != 10+countFiles(more) {
		b.Fatalf("registry: %v", built.Problems)
	}
	empty := (&registry.Compiler{}).Build(nil, nil).Registry
	raw, err := os.ReadFile("../kpatch/testdata/bench/deployment.json")
	if err != nil {
		b.Fatal(err)
	}
	return &Handler{Registry: func() *registry.Registry { return reg }}, &Handler{Registry: func() *registry.Registry { return empty }}, raw
}

func countFiles(cms []corev1.ConfigMap) int {
	n := 0
	for _, cm := range cms {
		for k := range cm.Data {
			if registry.IsPatchKey(k) {
				n++
			}
		}
	}
	return n
}

// specificRegistry is n files in ConfigMaps of 100, each targeting
// Deployments that the benchmark's request is not: a third by a literal
// name, a third by a name prefix (app-N-*), a third by a namespace.
func specificRegistry(n int) []corev1.ConfigMap {
	var cms []corev1.ConfigMap
	for c := 0; c*100 < n; c++ {
		data := map[string]string{}
		for k := 0; k < 100 && c*100+k < n; k++ {
			i := c*100 + k
			var target string
			switch i % 3 {
			case 0:
				target = fmt.Sprintf("deployment.app-%d", i)
			case 1:
				target = fmt.Sprintf("deployment.app-%d-*", i)
			default:
				target = fmt.Sprintf("team-%d/deployment.*", i)
			}
			// a field of its own: no two files conflict
			data[fmt.Sprintf("s%05d.kpatch", i)] = fmt.Sprintf("[%s]\nannotations[example.com/s%05d]: \"on\"\n", target, i)
		}
		cms = append(cms, configMap(fmt.Sprintf("specific-%03d", c), data))
	}
	return cms
}

// benchmarkHandle is one admission of the benchmark Deployment, named
// name, through the 10-file registry and extra more specific files.
func benchmarkHandle(b *testing.B, extra int, name string, patched bool) {
	h, _, raw := benchHandlerWith(b, specificRegistry(extra))
	req := request(admissionv1.Create, "shop", string(raw))
	req.Name = name
	if name != "web" {
		req.Object.Raw = bytes.Replace(raw, []byte(`"name": "web"`), []byte(`"name": "`+name+`"`), 1)
	}
	b.ReportAllocs()
	for b.Loop() {
		if resp := h.Handle(context.Background(), req); len(resp.Patch) > 0 != patched || !resp.Allowed {
			b.Fatalf("patched %v, want %v", len(resp.Patch) > 0, patched)
		}
	}
}

// BenchmarkHandlePatched is one admission of a realistic Deployment
// through the 10-file registry: decode, apply, marshal, diff.
func BenchmarkHandlePatched(b *testing.B) { benchmarkHandle(b, 0, "web", true) }

// BenchmarkHandlePatched10000 is the same with 10,000 more files, each
// targeting other Deployments: within 1.2x of BenchmarkHandlePatched.
func BenchmarkHandlePatched10000(b *testing.B) { benchmarkHandle(b, 10000, "web", true) }

// BenchmarkHandleSkipped is the admission of a Deployment no file
// targets, answered without decoding it; BenchmarkHandleSkipped10000 the
// same with 10,000 more files.
func BenchmarkHandleSkipped(b *testing.B)      { benchmarkHandle(b, 0, "other", false) }
func BenchmarkHandleSkipped10000(b *testing.B) { benchmarkHandle(b, 10000, "other", false) }

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

// BenchmarkHandleBenchE2EChange is the admission `make bench-e2e` measures
// end to end: its registry file (test/benche2e/testdata/change.kpatch: an
// annotation and a container's cpu request, two sections) on the
// benchmark Deployment as the API server sends it (with its
// managedFields: internal/objectjson/testdata/deployment-apiserver.json).
// Its time here, in a hot loop, against the webhook's own
// kpatch_apply_duration_seconds and server-side mean in that run, is the
// cost of a cold core (docs/performance.md).
func BenchmarkHandleBenchE2EChange(b *testing.B) {
	src, err := os.ReadFile("../../test/benche2e/testdata/change.kpatch")
	if err != nil {
		b.Fatal(err)
	}
	built := (&registry.Compiler{}).Build([]corev1.ConfigMap{configMap("bench", map[string]string{"change.kpatch": string(src)})}, nil)
	if len(built.Problems) != 0 || built.Registry.Active() != 1 {
		b.Fatalf("registry: %v", built.Problems)
	}
	raw, err := os.ReadFile("../../internal/objectjson/testdata/deployment-apiserver.json")
	if err != nil {
		b.Fatal(err)
	}
	h := &Handler{Registry: func() *registry.Registry { return built.Registry }}
	req := request(admissionv1.Create, "shop", string(raw))
	resp := h.Handle(context.Background(), req)
	if !resp.Allowed || !bytes.Contains(resp.Patch, []byte(`"/spec/template/spec/containers/0/resources/requests/cpu","value":"250m"`)) ||
		!bytes.Contains(resp.Patch, []byte(`example.com~1owner`)) {
		b.Fatalf("not the change: %s", resp.Patch)
	}
	b.ReportAllocs()
	for b.Loop() {
		h.Handle(context.Background(), req)
	}
}
