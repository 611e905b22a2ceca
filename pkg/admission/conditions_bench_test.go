package admission

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/registry"
)

// benchmarkHandleConditioned is BenchmarkHandlePatched with a condition
// that holds on each of the 10 files: the difference, divided by 10, is
// what one condition costs a request.
func benchmarkHandleConditioned(b *testing.B, when string) {
	h := conditionedHandler(b, func(int) string { return when })
	req := conditionedRequest(b)
	b.ReportAllocs()
	for b.Loop() {
		mustPatch(b, h, context.Background(), req)
	}
}

// conditionedHandler is a Handler of the 10 files of the benchmark
// registry, the i-th (in name order) under the condition when(i), or none
// when that is empty.
func conditionedHandler(b *testing.B, when func(i int) string) *Handler {
	files, _ := filepath.Glob("../kpatch/testdata/bench/*.kpatch")
	sort.Strings(files)
	data := map[string]string{}
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data[filepath.Base(f)] = string(src)
		if w := when(i); w != "" {
			data[filepath.Base(f)] = "# kpatch:when: " + w + "\n" + string(src)
		}
	}
	var c registry.Compiler
	built := c.Build([]corev1.ConfigMap{configMap("bench", data)}, nil)
	if len(built.Problems) != 0 || built.Registry.Active() != 10 {
		b.Fatalf("registry: %v", built.Problems)
	}
	reg := built.Registry
	return &Handler{Registry: func() *registry.Registry { return reg }}
}

// conditionedRequest is the CREATE of the benchmark Deployment by a user.
func conditionedRequest(b *testing.B) admission.Request {
	raw, err := os.ReadFile("../kpatch/testdata/bench/deployment.json")
	if err != nil {
		b.Fatal(err)
	}
	req := request(admissionv1.Create, "shop", string(raw))
	req.Name = "web"
	req.UserInfo = authenticationv1.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}}
	return req
}

// mustPatch handles req and fails unless every file patched it cleanly.
func mustPatch(b *testing.B, h *Handler, ctx context.Context, req admission.Request) {
	if resp := h.Handle(ctx, req); len(resp.Patch) == 0 || !resp.Allowed || len(resp.Warnings) > 0 {
		b.Fatalf("not patched: %+v", resp)
	}
}

// BenchmarkHandleConditionCost reports what one condition adds to a
// request (ns/condition, allocs/condition): the benchmark registry with
// and without a condition on each of its 10 files, the two handled in
// turn in one loop so that the machine's noise meets both alike, under a
// context with a deadline as the webhook's requests have. The time is the
// process's CPU time (cpuTime), garbage collection included; run it with
// GOMAXPROCS=1 so that nothing else of the process runs meanwhile. The
// conditions differ from file to file (object.spec.replicas > -i), so
// that each is evaluated on its own.
func BenchmarkHandleConditionCost(b *testing.B) {
	for _, bc := range []struct{ name, when string }{
		{"object", "object.spec.replicas > -%d"},
		{"request", "!request.userInfo.username.startsWith('system:serviceaccount:%d') && has(object.metadata.labels)"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			plain := conditionedHandler(b, func(int) string { return "" })
			conditioned := conditionedHandler(b, func(i int) string { return fmt.Sprintf(bc.when, i+1) })
			req := conditionedRequest(b)
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			allocs := testing.AllocsPerRun(100, func() { mustPatch(b, conditioned, ctx, req) }) -
				testing.AllocsPerRun(100, func() { mustPatch(b, plain, ctx, req) })
			var without, with time.Duration
			for b.Loop() {
				start := cpuTime()
				mustPatch(b, plain, ctx, req)
				mid := cpuTime()
				mustPatch(b, conditioned, ctx, req)
				with += cpuTime() - mid
				without += mid - start
			}
			b.ReportMetric(float64(with-without)/float64(b.N)/10, "ns/condition")
			b.ReportMetric(allocs/10, "allocs/condition")
			b.ReportMetric(float64(without)/float64(b.N), "ns/request-without")
		})
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

// BenchmarkHandleConditionsScale: a request whose N conditioned files
// each set one label, at N and 10N files: the conditions and the files
// cost linearly in their number.
func BenchmarkHandleConditionsScale(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			data := map[string]string{}
			for i := range n {
				data[fmt.Sprintf("f%03d.kpatch", i)] = fmt.Sprintf("# kpatch:when: object.spec.replicas > -%d\n[deployment.*]\nlabels.l%d: \"x\"\n", i+1, i)
			}
			var c registry.Compiler
			built := c.Build([]corev1.ConfigMap{configMap("bench", data)}, nil)
			if len(built.Problems) != 0 || built.Registry.Active() != n {
				b.Fatalf("registry: %v", built.Problems)
			}
			reg := built.Registry
			h := &Handler{Registry: func() *registry.Registry { return reg }}
			req := conditionedRequest(b)
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			b.ReportAllocs()
			for b.Loop() {
				mustPatch(b, h, ctx, req)
			}
		})
	}
}
