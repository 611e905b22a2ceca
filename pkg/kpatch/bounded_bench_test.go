package kpatch

import (
	"fmt"
	"testing"
)

// longPod is a Pod with n containers.
func longPod(n int) map[string]any {
	containers := make([]any, n)
	for i := range containers {
		containers[i] = map[string]any{"name": fmt.Sprintf("c%d", i), "image": "nginx:1.27"}
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "long", "namespace": "default"},
		"spec":     map[string]any{"containers": containers},
	}
}

// BenchmarkApplyLongList sets a field on every container of a Pod with
// 5,000 and 50,000 containers: the cost per container stays the same.
func BenchmarkApplyLongList(b *testing.B) {
	p := mustPatch(b, "pull.kpatch", "[pod.*.containers]\nimagePullPolicy: Always\n")
	for _, n := range []int{5_000, 50_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			obj := longPod(n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Apply(obj, ApplyOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
