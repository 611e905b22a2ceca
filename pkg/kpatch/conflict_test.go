package kpatch

import (
	"fmt"
	"strings"
	"testing"
)

func TestConflicts(t *testing.T) {
	compile := func(name, src string) *Patch { return mustPatch(t, name, src) }
	a := compile("a.kpatch", "[deployment.web]\nreplicas: 3\nlabels.team: x\n[deployment.web.containers.name=main]\nresources.limits.cpu: 500m\n")
	b := compile("b.yaml", `- target: deployment.*
  type: strategic
  patch:
    metadata: {labels: {team: x}}
    spec:
      replicas: 5
      template:
        spec:
          containers:
          - name: main
            resources: {limits: {cpu: "1"}}
          - name: other
            resources: {limits: {cpu: 500m}}
`)
	c := compile("c.kpatch", "[deployment.api]\nreplicas: 9\n[deployment(example.com).web]\nreplicas: 7\n")
	got := Conflicts([]*Patch{a, b, c})
	var lines []string
	for _, x := range got {
		lines = append(lines, x.Error())
	}
	want := []string{
		`a.kpatch:2:1: spec.replicas set to 3, but b.yaml:1:3 sets it to 5 (the later file wins)`,
		`a.kpatch:5:1: spec.template.spec.containers[name=main].resources.limits.cpu set to "500m", but b.yaml:1:3 sets it to "1" (the later file wins)`,
	}
	// c's [deployment.api] is more specific than b's [deployment.*]: an
	// intended override; a's [deployment.web] is more specific than b's
	// target, which the order given makes win: a conflict
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("conflicts:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if n := len(Conflicts([]*Patch{a, a})); n != 0 {
		t.Errorf("a file conflicts with itself: %d", n)
	}
}

// replicaFiles is n one-line files setting the replicas of one
// Deployment, each to its own value when conflicting, else each on its
// own Deployment.
func replicaFiles(tb testing.TB, n int, conflicting bool) []*Patch {
	tb.Helper()
	patches := make([]*Patch, n)
	for i := range patches {
		src := fmt.Sprintf("[deployment.app-%d]\nreplicas: 3\n", i)
		if conflicting {
			src = fmt.Sprintf("[deployment.web]\nreplicas: %d\n", i)
		}
		patches[i] = mustPatch(tb, fmt.Sprintf("f%05d.kpatch", i), src)
	}
	return patches
}

// TestConflictsUpTo counts every conflict of 2,000 files setting one
// field, but keeps only the first ones, in the order Conflicts gives.
func TestConflictsUpTo(t *testing.T) {
	patches := replicaFiles(t, 2000, true)
	first, total := ConflictsUpTo(patches, 10)
	if total != 2000*1999/2 || len(first) != 10 {
		t.Fatalf("got %d conflicts of %d, want 10 of %d", len(first), total, 2000*1999/2)
	}
	small := Conflicts(patches[:6])
	for i, c := range first {
		if c.Error() != small[i].Error() {
			t.Errorf("conflict %d: %v, want %v", i, c, small[i])
		}
	}
	if _, total := ConflictsUpTo(replicaFiles(t, 2000, false), 10); total != 0 {
		t.Errorf("files on different Deployments conflict: %d", total)
	}
}

// TestConflictsCountsLikeComparing checks the counts of ConflictsUpTo
// against the conflicts Conflicts lists, on files with globs, groups,
// namespaces, equal values and a file given twice.
func TestConflictsCountsLikeComparing(t *testing.T) {
	srcs := []string{
		"[deployment.web]\nreplicas: 3\n",
		"[deployment.web]\nreplicas: 3.0\n",
		"[deployment.*]\nreplicas: 4\n",
		"[shop/deployment.web]\nreplicas: 5\n",
		"[other/deployment.web]\nreplicas: 6\n",
		"[Deployment(apps/v1).web]\nreplicas: 7\n",
		"[deployment(example.com).web]\nreplicas: 8\n",
		"[deployment.api]\nreplicas: 9\n",
		"[deployment.web]\nlabels.team: x\nreplicas: 3\n",
		"[deployment.*]\nreplicas: 10\n", // after more specific targets: conflicts with them
	}
	var patches []*Patch
	for i, src := range srcs {
		patches = append(patches, mustPatch(t, fmt.Sprintf("f%d.kpatch", i), src))
	}
	patches = append(patches, patches[3])
	all := Conflicts(patches)
	first, total := ConflictsUpTo(patches, 3)
	if total != len(all) || len(first) != 3 {
		t.Fatalf("ConflictsUpTo: %d of %d, Conflicts: %d", len(first), total, len(all))
	}
	if want := naiveConflicts(patches); total != want {
		t.Errorf("%d conflicts, comparing every pair gives %d", total, want)
	}
	if total < 10 {
		t.Errorf("too few conflicts to test anything: %d", total)
	}
}

// naiveConflicts counts conflicts by comparing every pair of writes.
func naiveConflicts(patches []*Patch) int {
	var seen []write
	n := 0
	for _, p := range patches {
		mine := p.writes()
		for _, w := range mine {
			for _, e := range seen {
				if e.path == w.path && e.pos.File != w.pos.File && mayOverlap(&e.target, &w.target) && !equalValue(e.value, w.value) &&
					e.target.Specificity().Compare(w.target.Specificity()) >= 0 {
					n++
				}
			}
		}
		seen = append(seen, mine...)
	}
	return n
}

// TestConflictsOnCustomResourceMetadata: a custom resource's labels are
// texts whatever its CRD, so 1.10 and "1.10" are one value and 1.10 and
// "1.1" two, as apply writes them.
func TestConflictsOnCustomResourceMetadata(t *testing.T) {
	plain := mustPatch(t, "a.kpatch", "[thing.t]\nlabels.v: 1.10\n")
	for src, conflicts := range map[string]int{
		"[thing.t]\nlabels.v: \"1.10\"\n": 0,
		"[thing.t]\nlabels.v: \"1.1\"\n":  1,
		"[thing.t]\nlabels.v: 1.1\n":      1,
	} {
		if got := Conflicts([]*Patch{plain, mustPatch(t, "b.kpatch", src)}); len(got) != conflicts {
			t.Errorf("1.10 then %q: %v, want %d conflicts", src, got, conflicts)
		}
	}
}
