package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// syntheticRegistry is n small files in ConfigMaps of 100 files each.
// With conflicting, every file sets the replicas of every Deployment to a
// value of its own; else each sets its own Deployment's replicas and a
// label, and no two conflict.
func syntheticRegistry(n int, conflicting bool) []corev1.ConfigMap {
	const perConfigMap = 100
	var cms []corev1.ConfigMap
	for c := 0; c*perConfigMap < n; c++ {
		data := map[string]string{}
		for k := 0; k < perConfigMap && c*perConfigMap+k < n; k++ {
			i := c*perConfigMap + k
			if conflicting {
				data[fmt.Sprintf("f%05d.kpatch", i)] = fmt.Sprintf("[deployment.*]\nreplicas: %d\n", i)
			} else {
				data[fmt.Sprintf("f%05d.kpatch", i)] = fmt.Sprintf("[deployment.app-%d]\nreplicas: %d\nlabels.team: t%d\n", i, i%5+1, i)
			}
		}
		cms = append(cms, configMap(fmt.Sprintf("cm-%03d", c), data))
	}
	return cms
}

// benchmarkOneKeyEdit measures a build after one key of an n-file
// registry changed: the registry that applies is swapped in after it.
func benchmarkOneKeyEdit(b *testing.B, n int) {
	cms := syntheticRegistry(n, false)
	var c Compiler
	stored := c.Build(cms, nil).LastGood
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		cms[0].Data["f00000.kpatch"] = fmt.Sprintf("[deployment.app-0]\nreplicas: %d\nlabels.team: t0\n", i%5+1)
		built := c.Build(cms, stored)
		if built.Compiled != 1 {
			b.Fatalf("compiled %d", built.Compiled)
		}
	}
}

// BenchmarkOneKeyEdit1000 and BenchmarkOneKeyEdit10000: a one-key edit of
// a 1,000- and a 10,000-file registry, up to the new registry in force.
func BenchmarkOneKeyEdit1000(b *testing.B)  { benchmarkOneKeyEdit(b, 1000) }
func BenchmarkOneKeyEdit10000(b *testing.B) { benchmarkOneKeyEdit(b, 10000) }

// benchmarkConflicts measures the conflict analysis that follows an edit
// of an n-file registry without conflicts (kpatch.FieldConflicts).
func benchmarkConflicts(b *testing.B, n int) {
	var c Compiler
	reg := c.Build(syntheticRegistry(n, false), nil).Registry
	b.ReportAllocs()
	for b.Loop() {
		if r := FindConflicts(reg); r.Total != 0 {
			b.Fatalf("%d conflicts", r.Total)
		}
	}
}

func BenchmarkConflicts1000(b *testing.B)  { benchmarkConflicts(b, 1000) }
func BenchmarkConflicts10000(b *testing.B) { benchmarkConflicts(b, 10000) }

// benchmarkSyncConflicting measures a whole first sync (compile, swap,
// conflict analysis) of an n-file registry where every file sets
// replicas: n(n-1)/2 conflicting pairs, on one contested field. It reports
// the heap the registry and its report keep after the sync
// (retained-bytes).
func benchmarkSyncConflicting(b *testing.B, n int) {
	cms := syntheticRegistry(n, true)
	b.ReportAllocs()
	var before, after runtime.MemStats
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		var c Compiler
		reg := c.Build(cms, nil).Registry
		r := FindConflicts(reg)
		if r.Total != 1 || len(r.First) != 1 {
			b.Fatalf("%d conflicts, %d kept", r.Total, len(r.First))
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(reg)
		runtime.KeepAlive(r)
		b.StartTimer()
	}
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "retained-bytes")
}

func BenchmarkSyncConflicting200(b *testing.B)  { benchmarkSyncConflicting(b, 200) }
func BenchmarkSyncConflicting2000(b *testing.B) { benchmarkSyncConflicting(b, 2000) }

// BenchmarkCompiledSize reports the memory a compiled file keeps per byte
// of source (heap-bytes/source-byte), the measure behind
// CompiledSizeFactor: one-line files, the benchmark files of
// pkg/kpatch/testdata/bench, and one 1 MiB file of 60,000 entries.
func BenchmarkCompiledSize(b *testing.B) {
	files, _ := filepath.Glob("../kpatch/testdata/bench/*.kpatch")
	var bench []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		bench = append(bench, string(src))
	}
	var big strings.Builder
	big.WriteString("[deployment.web]\n")
	for i := 0; big.Len() < 1<<20; i++ {
		fmt.Fprintf(&big, "labels.l%d: v%d\n", i, i)
	}
	for _, c := range []struct {
		name  string
		srcs  []string
		times int
	}{{"one-line", []string{"[deployment.app-1]\nreplicas: 3\n"}, 2000}, {"bench", bench, 200}, {"1MiB", []string{big.String()}, 1}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.ReportMetric(retainedPerSourceByte(b, c.srcs, c.times), "heap-bytes/source-byte")
			}
		})
	}
}

// retainedPerSourceByte compiles every source times times and returns the
// live heap they keep per source byte.
func retainedPerSourceByte(b *testing.B, srcs []string, times int) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	keep := make([]*kpatch.Patch, 0, len(srcs)*times)
	size := 0
	for i := range times {
		for j, src := range srcs {
			p, err := kpatch.ParseAndCompile(fmt.Sprintf("f%d-%d.kpatch", i, j), []byte(strings.Clone(src)))
			if err != nil {
				b.Fatal(err)
			}
			keep = append(keep, p)
			size += len(src)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(size)
}
