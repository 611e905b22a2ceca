package main

import (
	"fmt"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// BenchmarkUnmatchedTargets matches n sections against 10n objects of n
// kinds, at n and 10n.
func BenchmarkUnmatchedTargets(b *testing.B) {
	for _, n := range []int{100, 1000} {
		var src strings.Builder
		var objects []kpatch.ObjectRef
		for i := range n {
			fmt.Fprintf(&src, "[kind%d.app-%d]\nspec.x: 1\n\n", i, i)
			for j := range 10 {
				objects = append(objects, kpatch.ObjectRef{APIVersion: "v1", Kind: fmt.Sprintf("Kind%d", i), Name: fmt.Sprintf("app-%d", j)})
			}
		}
		p, err := kpatch.ParseAndCompile("b.kpatch", []byte(src.String()))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("sections=%d", n), func(b *testing.B) {
			for b.Loop() {
				if u := unmatchedTargets([]*kpatch.Patch{p}, objects, false); len(u) != n-10 {
					b.Fatalf("%d unmatched", len(u))
				}
			}
		})
	}
}

// BenchmarkFmt formats a file of n sections with comments, at n and 10n.
func BenchmarkFmt(b *testing.B) {
	for _, n := range []int{100, 1000} {
		var src strings.Builder
		for i := range n {
			fmt.Fprintf(&src, "  # section %d\n[deployment.app-%d]   # inline\n  replicas:  %d\n\n\n containers.name=main.image: app:%d # tag\n", i, i, i, i)
		}
		b.Run(fmt.Sprintf("sections=%d", n), func(b *testing.B) {
			b.SetBytes(int64(src.Len()))
			for b.Loop() {
				if _, err := formatKpatch("b.kpatch", []byte(src.String())); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchDeployment is a Deployment with n containers, each with args,
// env and ports; version changes every image and one env value of each,
// and the last container only exists from version 2 on.
func benchDeployment(n, version int) string {
	var b strings.Builder
	b.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web # the app\n")
	fmt.Fprintf(&b, "spec:\n  replicas: %d\n  template:\n    spec:\n      containers:\n", version)
	for i := range n {
		if i == n-1 && version == 1 {
			break
		}
		fmt.Fprintf(&b, "      # container %d\n      - name: c%d\n        image: ghcr.io/example/c%d:1.%d\n", i, i, i, version)
		fmt.Fprintf(&b, "        args: [\"--port=%d\", --verbose]\n        env:\n", 8000+i)
		for j := range 5 {
			fmt.Fprintf(&b, "          - name: VAR_%d\n            value: \"%d\"\n", j, j*version)
		}
		fmt.Fprintf(&b, "        ports:\n          - containerPort: %d\n            name: http\n\n", 8000+i)
	}
	return b.String()
}

// BenchmarkDiff diffs and checks a Deployment of n containers, at n and
// 10n.
func BenchmarkDiff(b *testing.B) {
	for _, n := range []int{10, 100} {
		base := readObjectsText(b, "BASE", benchDeployment(n, 1))
		target := readObjectsText(b, "TARGET", benchDeployment(n, 2))
		pairs, _ := pairObjects(base, target, false)
		for _, format := range []string{"kpatch", "yaml"} {
			b.Run(fmt.Sprintf("containers=%d/%s", n, format), func(b *testing.B) {
				o := &diffOptions{output: format}
				for b.Loop() {
					if _, err := o.diff(pairs, base, target); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRewriteDocument writes back a Deployment of n containers with
// comments and blank lines, whose every container changed, and reads the
// result back to check it, at n and 10n.
func BenchmarkRewriteDocument(b *testing.B) {
	for _, n := range []int{10, 100} {
		text := []byte(benchDeployment(n, 1))
		f, err := readManifestFile("bench.yaml", text)
		if err != nil {
			b.Fatal(err)
		}
		orig := f.documents()[0].obj
		patched := readObjectsText(b, "TARGET", benchDeployment(n, 2))[0].obj
		b.Run(fmt.Sprintf("containers=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := spliceDocument(text, orig, patched); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExplain explains n patch files, each setting a value of one of
// 10 ConfigMaps, at n and 10n: the report holds n files for each object.
// The objects keep their size; diffing a result costs its object's size.
func BenchmarkExplain(b *testing.B) {
	const objects = 10
	for _, n := range []int{100, 1000} {
		var files patchFiles
		var docs []*document
		for i := range n {
			p, err := kpatch.ParseAndCompile(fmt.Sprintf("%d.kpatch", i), fmt.Appendf(nil, "[configmap.c%d]\ndata.a: v%d\n", i%objects, i))
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, patchFile{patch: p})
		}
		for i := range objects {
			docs = append(docs, &document{obj: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": fmt.Sprintf("c%d", i)}, "data": map[string]any{"a": "x"}}})
		}
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			for b.Loop() {
				if r := newTracer(docs, kpatch.ApplyOptions{}).trace(files); len(r[0].Files) != n {
					b.Fatalf("%d objects", len(r))
				}
			}
		})
	}
}
