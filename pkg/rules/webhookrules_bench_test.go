package rules

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/registry"
)

// benchmarkResolveRules resolves a registry of n files, each with a
// literal kind and a kind glob target, against the test cluster.
func benchmarkResolveRules(b *testing.B, n int) {
	data := map[string]string{}
	for i := range n {
		data[fmt.Sprintf("f%05d.kpatch", i)] = fmt.Sprintf("[deployment.web-%d]\nreplicas: 2\n\n[*Set.web-%d]\nlabels.a: b\n", i, i)
	}
	var c registry.Compiler
	reg := c.Build([]corev1.ConfigMap{configMap("reg", data)}, nil).Registry
	b.ResetTimer()
	for b.Loop() {
		if r := ResolveRules(reg, cluster, createOnly); len(r.Resources) != 5 {
			b.Fatalf("resources %v", r.Resources)
		}
	}
}

func BenchmarkResolveRules1000(b *testing.B)  { benchmarkResolveRules(b, 1000) }
func BenchmarkResolveRules10000(b *testing.B) { benchmarkResolveRules(b, 10000) }
