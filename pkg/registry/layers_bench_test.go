package registry

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// layeredRegistry is n files in ConfigMaps of 100 files each, in 10
// layers (label kpatch.dev/layer): each file sets the replicas and a label
// of its own Deployment, requires the file before it in its ConfigMap
// (requires: metadata) and conflicts with a file that is not installed;
// the first file of each ConfigMap sets the replicas of every Deployment,
// which the later layers override on purpose.
func layeredRegistry(n int) []corev1.ConfigMap {
	const perConfigMap = 100
	var cms []corev1.ConfigMap
	for c := 0; c*perConfigMap < n; c++ {
		data := map[string]string{}
		for k := 0; k < perConfigMap && c*perConfigMap+k < n; k++ {
			i := c*perConfigMap + k
			src := fmt.Sprintf("# kpatch:requires: f%05d\n# kpatch:conflicts: legacy\n[deployment.app-%d]\nreplicas: %d\nlabels.team: t%d\n", i-1, i, i%5+1, i)
			if k == 0 {
				src = fmt.Sprintf("# kpatch:description: defaults of layer %d\n[deployment.*]\nreplicas: %d\n", c%10, c%10+1)
			}
			data[fmt.Sprintf("f%05d.kpatch", i)] = src
		}
		cm := configMap(fmt.Sprintf("cm-%03d", c), data)
		cm.Labels = map[string]string{LayerLabel: fmt.Sprint(c % 10)}
		cms = append(cms, cm)
	}
	return cms
}

// benchmarkBuildLayered measures a first build (every file compiled,
// ordered by layer, specificity and requires:, related) of an n-file
// layered registry and its conflict analysis (none).
func benchmarkBuildLayered(b *testing.B, n int) {
	cms := layeredRegistry(n)
	b.ReportAllocs()
	for b.Loop() {
		var c Compiler
		reg := c.Build(cms, nil).Registry
		if got := len(reg.Applied()); got != n {
			b.Fatalf("%d of %d files apply", got, n)
		}
		if r := FindConflicts(reg); r.Total != 0 {
			b.Fatalf("%d conflicts: %v", r.Total, r.First[0])
		}
	}
}

// BenchmarkBuildLayered1000 and BenchmarkBuildLayered10000: a first build
// of a layered registry of 1,000 and 10,000 files with requires:.
func BenchmarkBuildLayered1000(b *testing.B)  { benchmarkBuildLayered(b, 1000) }
func BenchmarkBuildLayered10000(b *testing.B) { benchmarkBuildLayered(b, 10000) }

// benchmarkRelayer measures a build of an n-file layered registry after
// one ConfigMap's layer label changed: nothing is compiled, the files
// are ordered and related again.
func benchmarkRelayer(b *testing.B, n int) {
	cms := layeredRegistry(n)
	var c Compiler
	c.Build(cms, nil)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		cms[0].Labels[LayerLabel] = fmt.Sprint(i % 20)
		if built := c.Build(cms, nil); built.Compiled != 0 {
			b.Fatalf("compiled %d", built.Compiled)
		}
	}
}

// BenchmarkRelayer1000 and BenchmarkRelayer10000: a layer label edited
// in a registry of 1,000 and 10,000 files.
func BenchmarkRelayer1000(b *testing.B)  { benchmarkRelayer(b, 1000) }
func BenchmarkRelayer10000(b *testing.B) { benchmarkRelayer(b, 10000) }
