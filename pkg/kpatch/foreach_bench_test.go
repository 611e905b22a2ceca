package kpatch

import (
	"fmt"
	"testing"
)

// podWithContainers is a Pod of n containers named c0, c1...
func podWithContainers(n int) map[string]any {
	containers := make([]any, n)
	for i := range containers {
		containers[i] = map[string]any{"name": fmt.Sprintf("c%d", i), "image": "registry.example/app:1"}
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web"},
		"spec":     map[string]any{"containers": containers},
	}
}

// foreachBenchFile is a foreach section of three entries over a Pod's
// containers: a key with a variable, a CEL value, and a condition per
// element.
const foreachBenchFile = `[pod.*]
# kpatch:foreach: object.spec.containers
# kpatch:when: item.name != ''
annotations[container.apparmor.security.beta.kubernetes.io/${item.name}]?: runtime/default
annotations[example.com/image-${item.name}]: ${cel: item.image.split(':')[0]}
labels.containers: ${cel: string(size(object.spec.containers))}
`

// BenchmarkForeach applies a foreach section of three entries to a Pod of
// 10 and of 100 containers: the work is the elements times the entries,
// so the second costs about ten times the first.
func BenchmarkForeach(b *testing.B) {
	p := mustPatch(b, "foreach.kpatch", foreachBenchFile)
	for _, n := range []int{10, 100} {
		obj := podWithContainers(n)
		b.Run(fmt.Sprintf("containers=%d", n), func(b *testing.B) {
			out, err := Apply(obj, []*Patch{p}, ApplyOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if got := len(out["metadata"].(map[string]any)["annotations"].(map[string]any)); got != 2*n {
				b.Fatalf("%d annotations, want %d", got, 2*n)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Apply(obj, []*Patch{p}, ApplyOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
