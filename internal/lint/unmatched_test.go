package lint

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
				if u := UnmatchedTargets([]*kpatch.Patch{p}, objects, false); len(u) != n-10 {
					b.Fatalf("%d unmatched", len(u))
				}
			}
		})
	}
}
