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

// BenchmarkConflicts finds the conflicts of 2,000 and 20,000 one-line
// files setting the replicas of one Deployment, each to its own value
// (n(n-1)/2 conflicts, the first 100 kept), and of as many files setting
// the replicas of a Deployment each (none).
func BenchmarkConflicts(b *testing.B) {
	for _, conflicting := range []bool{true, false} {
		for _, n := range []int{2_000, 20_000} {
			name := fmt.Sprintf("conflicting/%d", n)
			if !conflicting {
				name = fmt.Sprintf("distinct/%d", n)
			}
			b.Run(name, func(b *testing.B) {
				patches := replicaFiles(b, n, conflicting)
				b.ReportAllocs()
				for b.Loop() {
					ConflictsUpTo(patches, 100)
				}
			})
		}
	}
}
