package main

import (
	"fmt"
	"testing"

	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/pkg/schema"
)

// BenchmarkExplain explains n patch files, each setting a value of one of
// 10 ConfigMaps, at n and 10n: the report holds n files for each object.
// The objects keep their size; diffing a result costs its object's size.
func BenchmarkExplain(b *testing.B) {
	const objects = 10
	for _, n := range []int{100, 1000} {
		var sources []registry.SourceFile
		var docs []*manifest.Document
		for i := range n {
			sources = append(sources, registry.SourceFile{Name: fmt.Sprintf("%d.kpatch", i), Data: fmt.Appendf(nil, "[configmap.c%d]\ndata.a: v%d\n", i%objects, i)})
		}
		files := registry.CompileFiles(sources, nil)
		for i := range objects {
			docs = append(docs, &manifest.Document{Obj: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": fmt.Sprintf("c%d", i)}, "data": map[string]any{"a": "x"}}})
		}
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			for b.Loop() {
				if r := newTracer(docs, kpatch.ApplyOptions{}, nil, &schema.Checker{}).trace(files); len(r[0].Files) != n {
					b.Fatalf("%d objects", len(r))
				}
			}
		})
	}
}
