package kpatch

import (
	"fmt"
	"testing"
)

// globFiles is n one-section files setting the replicas of targets with
// a name or namespace glob: each on its own names ("distinct": [deployment.app-i-*],
// no conflict), each on its own namespaces ("tenants": [team-i-*/deployment.*],
// no conflict), or all on one glob with its own value ("shared":
// [deployment.app-*], every pair a conflict).
func globFiles(tb testing.TB, n int, shape string) []*Patch {
	tb.Helper()
	patches := make([]*Patch, n)
	for i := range patches {
		var src string
		switch shape {
		case "distinct":
			src = fmt.Sprintf("[deployment.app-%d-*]\nreplicas: %d\n", i, i)
		case "tenants":
			src = fmt.Sprintf("[team-%d-*/deployment.*]\nreplicas: %d\n", i, i)
		case "shared":
			src = fmt.Sprintf("[deployment.app-*]\nreplicas: %d\n", i)
		}
		patches[i] = mustPatch(tb, fmt.Sprintf("f%05d.kpatch", i), src)
	}
	return patches
}

// BenchmarkConflictsNameGlobs finds the conflicts of 1,000 and 10,000
// files with name or namespace globs (globFiles), keeping the first 100
// as a registry does.
func BenchmarkConflictsNameGlobs(b *testing.B) {
	for _, shape := range []string{"distinct", "tenants", "shared"} {
		for _, n := range []int{1_000, 10_000} {
			b.Run(fmt.Sprintf("%s/%d", shape, n), func(b *testing.B) {
				patches := globFiles(b, n, shape)
				want := 0
				if shape == "shared" {
					want = n * (n - 1) / 2
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, total := ConflictsUpTo(patches, 100); total != want {
						b.Fatalf("%d conflicts, want %d", total, want)
					}
				}
			})
		}
	}
}
