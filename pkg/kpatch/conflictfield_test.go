package kpatch

import (
	"fmt"
	"testing"
)

func TestFieldConflictsOneLinePerField(t *testing.T) {
	const n = 2000
	patches := replicaFiles(t, n, true)
	got := FieldConflicts(patches, nil, nil)
	if len(got) != 1 {
		t.Fatalf("%d contested fields, want 1", len(got))
	}
	c := got[0]
	if c.Pairs != n*(n-1)/2 {
		t.Errorf("pairs %d, want %d", c.Pairs, n*(n-1)/2)
	}
	if len(c.Writes) != n || len(c.Files()) != n {
		t.Fatalf("%d writes, %d files, want %d", len(c.Writes), len(c.Files()), n)
	}
	for i, w := range c.Writes {
		if w.Pos.File != patches[i].name {
			t.Fatalf("write %d is %s, want %s (apply order)", i, w.Pos.File, patches[i].name)
		}
	}
	if c.Winner().Pos.File != patches[n-1].name {
		t.Errorf("winner %s, want %s", c.Winner().Pos.File, patches[n-1].name)
	}
	want := fmt.Sprintf("deployment.web spec.replicas: set by %d files (%s:2:1 to 0, %s:2:1 to 1, %s:2:1 to 2, ... %d more); %s:2:1 wins (applies last, %d)",
		n, patches[0].name, patches[1].name, patches[2].name, n-MaxFieldFiles, patches[n-1].name, n-1)
	if c.Error() != want {
		t.Errorf("text:\n%s\nwant:\n%s", c.Error(), want)
	}
	if conflict := c.Conflict(); conflict.Error() != want || conflict.Later.File != patches[n-1].name || conflict.Earlier.File != patches[n-2].name {
		t.Errorf("conflict %+v", conflict)
	}
}

func TestFieldConflictsAgreeAndIntended(t *testing.T) {
	a := mustPatch(t, "a.kpatch", "[deployment.web]\nreplicas: 3\n")
	b := mustPatch(t, "b.kpatch", "[deployment.web]\nreplicas: 3\n")
	c := mustPatch(t, "c.kpatch", "[deployment.web]\nreplicas: 4\n")
	if got := FieldConflicts([]*Patch{a, b}, nil, nil); len(got) != 0 {
		t.Errorf("files that agree conflict: %v", got[0])
	}
	got := FieldConflicts([]*Patch{a, b, c}, nil, nil)
	if len(got) != 1 || got[0].Pairs != 2 || len(got[0].Writes) != 3 {
		t.Fatalf("got %+v", got)
	}
	buildsOn := func(later, earlier string) bool { return later == "c.kpatch" }
	if got := FieldConflicts([]*Patch{a, b, c}, nil, buildsOn); len(got) != 0 {
		t.Errorf("an intended override is reported: %v", got[0])
	}
	onlyA := func(later, earlier string) bool { return earlier == "a.kpatch" }
	if got := FieldConflicts([]*Patch{a, b, c}, nil, onlyA); len(got) != 1 {
		t.Errorf("a conflict with b is not reported")
	}
}

func TestFieldConflictsByTarget(t *testing.T) {
	a := mustPatch(t, "a.kpatch", "[deployment.web]\nreplicas: 3\n[deployment.api]\nreplicas: 3\n")
	b := mustPatch(t, "b.kpatch", "[deployment.web]\nreplicas: 4\n[deployment.api]\nreplicas: 5\n")
	got := FieldConflicts([]*Patch{a, b}, nil, nil)
	var lines []string
	for _, c := range got {
		lines = append(lines, c.Error())
	}
	want := []string{
		"deployment.web spec.replicas: set by 2 files (a.kpatch:2:1 to 3, b.kpatch:2:1 to 4); b.kpatch:2:1 wins (applies last, 4)",
		"deployment.api spec.replicas: set by 2 files (a.kpatch:4:1 to 3, b.kpatch:4:1 to 5); b.kpatch:4:1 wins (applies last, 5)",
	}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("got:\n%q\nwant:\n%q", lines, want)
	}
}

// BenchmarkFieldConflicts groups the conflicts of 200 and 2,000 files
// that all set one field to their own value: the cost grows with the
// number of files, not of pairs.
func BenchmarkFieldConflicts(b *testing.B) {
	for _, n := range []int{200, 2_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			patches := replicaFiles(b, n, true)
			b.ReportAllocs()
			for b.Loop() {
				if got := FieldConflicts(patches, nil, nil); len(got) != 1 || got[0].Pairs != n*(n-1)/2 {
					b.Fatalf("got %d fields", len(got))
				}
			}
		})
	}
}

func TestFieldConflictEachPair(t *testing.T) {
	a := mustPatch(t, "a.kpatch", "[deployment.web]\nreplicas: 3\n")
	b := mustPatch(t, "b.kpatch", "[deployment.web]\nreplicas: 3\n")
	c := mustPatch(t, "c.kpatch", "[deployment.web]\nreplicas: 4\n")
	got := FieldConflicts([]*Patch{a, b, c}, nil, nil)
	var pairs [][2]int
	got[0].EachPair(func(i, j int) { pairs = append(pairs, [2]int{i, j}) })
	if fmt.Sprint(pairs) != "[[0 2] [1 2]]" || len(pairs) != got[0].Pairs {
		t.Errorf("pairs %v, counted %d", pairs, got[0].Pairs)
	}
}

// TestConflictTextShowing: the values of the files not shown are left out,
// the winner's too; their positions stay. A conflict without its field
// says the same of its two files.
func TestConflictTextShowing(t *testing.T) {
	patches := replicaFiles(t, 3, true)
	c := FieldConflicts(patches, nil, nil)[0]
	middle := func(file string) bool { return file == patches[1].name }
	want := fmt.Sprintf("deployment.web spec.replicas: set by 3 files (%s:2:1, %s:2:1 to 1, %s:2:1); %s:2:1 wins (applies last)",
		patches[0].name, patches[1].name, patches[2].name, patches[2].name)
	if got := c.Conflict().TextShowing(middle); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	if got := c.TextShowing(MaxFieldFiles, nil); got != c.Error() {
		t.Errorf("every value shown: %s, want %s", got, c.Error())
	}
	pair := &Conflict{Path: "spec.replicas", Earlier: Position{File: "a.kpatch", Line: 2, Column: 1}, EarlierValue: 2, Later: Position{File: "b.kpatch", Line: 2, Column: 1}, LaterValue: 3}
	if got, want := pair.TextShowing(func(f string) bool { return f == "b.kpatch" }), "a.kpatch:2:1: spec.replicas set, but b.kpatch:2:1 sets it to 3 (the later file wins)"; got != want {
		t.Errorf("pair: %s, want %s", got, want)
	}
}
