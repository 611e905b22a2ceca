package kpatch

import (
	"errors"
	"fmt"
	"strings"
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
// 5,000, 50,000 and 200,000 containers: the cost per container stays
// the same.
func BenchmarkApplyLongList(b *testing.B) {
	p := mustPatch(b, "pull.kpatch", "[pod.*.containers]\nimagePullPolicy: Always\n")
	for _, n := range []int{5_000, 50_000, 200_000} {
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

// BenchmarkApplyExpansion applies a file whose 100 and 1,000 entries
// each hold a 100 KB variable: past MaxExpandedPerObject (31 entries) the
// file fails, so 1,000 references cost what 31 do.
func BenchmarkApplyExpansion(b *testing.B) {
	vars := &Variables{Values: map[string]any{"big": strings.Repeat("x", 100_000)}}
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"}}
	for _, n := range []int{100, 1_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			p := mustPatch(b, "big.kpatch", bigValueFile(n)).WithVariables(vars)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Apply(obj, ApplyOptions{}); !errors.Is(err, ErrLimit) {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseYAMLAliases parses YAML patch files of 1,000 and 10,000
// entries each repeating an anchored list of 100 items: past
// MaxAliasNodes the file fails, before anything is decoded.
func BenchmarkParseYAMLAliases(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			src := []byte(aliasBomb(n, 100))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseYAML("bomb.yaml", src); !errors.Is(err, ErrLimit) {
					b.Fatal(err)
				}
			}
		})
	}
}
