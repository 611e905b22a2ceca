package kpatch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestConflictsNameGlobs: two name globs conflict only when some name
// matches both, and two namespace globs only when some namespace does.
func TestConflictsNameGlobs(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"deployment.web-*", "deployment.api-*", 0},
		{"deployment.web-*", "deployment.*-canary", 1},
		{"deployment.app-1-*", "deployment.app-10-*", 0},
		{"deployment.app-1*", "deployment.app-10-*", 1},
		{"deployment.a?c", "deployment.ab*bc", 0},
		{"deployment.web-main", "deployment.web-*", 1},
		{"deployment.web-*", "deployment.api", 0},
		{"team-a*/deployment.*", "team-b*/deployment.*", 0},
		{"team-*/deployment.*", "*-b/deployment.*", 1},
		{"team-a/deployment.*", "team-?/deployment.*", 1},
		{"team-a/deployment.*", "deployment.*", 1},
	} {
		a := mustPatch(t, "a.kpatch", "["+c.a+"]\nreplicas: 1\n")
		b := mustPatch(t, "b.kpatch", "["+c.b+"]\nreplicas: 2\n")
		if _, n := ConflictsUpTo([]*Patch{a, b}, -1); n != c.want {
			t.Errorf("[%s] then [%s]: %d conflicts, want %d", c.a, c.b, n, c.want)
		}
	}
}

// randomTargetFile is a file setting the replicas of one or two random
// targets: literal, bracketed or escaped names and globs over a few bytes,
// no namespace, a literal one or a glob, and now and then a group.
func randomTargetFile(rng *rand.Rand) string {
	pattern := func(bytes []string, n int) string {
		var b strings.Builder
		for range 1 + rng.IntN(n) {
			b.WriteString(bytes[rng.IntN(len(bytes))])
		}
		return b.String()
	}
	var src strings.Builder
	for range 1 + rng.IntN(2) {
		src.WriteString("[")
		if rng.IntN(3) > 0 {
			src.WriteString(pattern([]string{"a", "b", "*", "?"}, 3) + "/")
		}
		src.WriteString("deployment")
		if rng.IntN(8) == 0 {
			src.WriteString([]string{"(apps)", "(example.com)", "(apps/v1)"}[rng.IntN(3)])
		}
		name := pattern([]string{"a", "b", "-", "*", "?", `\*`}, 4)
		if rng.IntN(6) == 0 {
			name = "[" + pattern([]string{"a", "b", "*"}, 3) + "]"
		}
		fmt.Fprintf(&src, ".%s]\nreplicas: %d\n", name, 1+rng.IntN(3))
	}
	return src.String()
}

// pairwiseConflicts is what ConflictsInOrder finds for files in one
// layer, by comparing every write with every earlier one.
func pairwiseConflicts(patches []*Patch) []string {
	var out []string
	var seen []*write
	for _, p := range patches {
		mine := p.constantWrites()
		for j := range mine {
			w := &mine[j]
			for _, e := range seen {
				if e.kind == w.kind && e.path == w.path && e.pos.File != w.pos.File && valueKey(e.value) != valueKey(w.value) &&
					mayOverlap(&e.target, &w.target) && e.target.Specificity().Compare(w.target.Specificity()) >= 0 {
					out = append(out, (&Conflict{Path: w.path, Earlier: e.pos, EarlierValue: e.value, Later: w.pos, LaterValue: w.value}).Error())
				}
			}
		}
		for j := range mine {
			seen = append(seen, &mine[j])
		}
	}
	return out
}

// TestConflictIndexMatchesPairwise: the conflicts the index finds are
// those of a comparison of every pair of writes, on random targets.
func TestConflictIndexMatchesPairwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 20 {
		patches := make([]*Patch, 60)
		for i := range patches {
			patches[i] = mustPatch(t, fmt.Sprintf("f%02d.kpatch", i), randomTargetFile(rng))
		}
		var got []string
		all, total := ConflictsUpTo(patches, -1)
		for _, c := range all {
			got = append(got, c.Error())
		}
		want := pairwiseConflicts(patches)
		if total != len(want) || !slices.Equal(got, want) {
			t.Fatalf("round %d: %d conflicts (%d listed), want %d:\n%s\nwant:\n%s", round, total, len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestPatternIndexCandidates: a write meets only the targets that may
// overlap its own, not every earlier glob of its field.
func TestPatternIndexCandidates(t *testing.T) {
	for _, c := range []struct {
		shape, query string
		want         int
	}{
		{"distinct", "[deployment.app-5-*]", 1},
		{"distinct", "[deployment.app-5-web]", 1},
		{"distinct", "[deployment.*-web]", 1000},
		{"tenants", "[team-5-*/deployment.*]", 1},
		{"tenants", "[team-5-a/deployment.web]", 1},
		{"shared", "[deployment.app-*]", 1},
	} {
		idx := conflictIndex{}
		for i, p := range globFiles(t, 1000, c.shape) {
			for j := range p.constantWrites() {
				idx.add(&p.constantWrites()[j], i)
			}
		}
		w := &mustPatch(t, "q.kpatch", c.query+"\nreplicas: 1\n").constantWrites()[0]
		if n := idx.bucket(w).candidates(w, nil); n != c.want {
			t.Errorf("%s files, %s: %d candidates, want %d", c.shape, c.query, n, c.want)
		}
	}
}
