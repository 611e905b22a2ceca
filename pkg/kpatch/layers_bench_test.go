package kpatch

import (
	"fmt"
	"testing"
)

// layeredFiles is n one-section files in 10 layers, in the order they
// apply, and their order keys: file i sets the replicas and a label of
// the Deployment app-i, and every tenth file, the first of its layer,
// sets the replicas of every Deployment (overridden, as intended, by the
// more specific files of its layer and by the later layers). No two
// writes conflict.
func layeredFiles(tb testing.TB, n int) ([]*Patch, []OrderKey) {
	tb.Helper()
	patches := make([]*Patch, n)
	keys := make([]OrderKey, n)
	per := max(n/10, 1)
	for i := range patches {
		layer := i / per
		src := fmt.Sprintf("# kpatch:layer: %d\n[deployment.app-%d]\nreplicas: %d\nlabels.team: t%d\n", layer, i, i%5+1, i)
		if i%per == 0 {
			src = fmt.Sprintf("# kpatch:layer: %d\n[deployment.*]\nreplicas: %d\n", layer, layer+1)
		}
		p := mustPatch(tb, fmt.Sprintf("f%05d.kpatch", i), src)
		patches[i] = p
		keys[i] = OrderKey{Layer: p.Layer().Value, Specificity: p.Specificity(), Position: i}
	}
	return patches, keys
}

// BenchmarkConflictsInOrder finds the conflicts of 1,000 and 10,000
// layered files (layeredFiles): none, every override being intended.
func BenchmarkConflictsInOrder(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			patches, keys := layeredFiles(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, total := ConflictsInOrder(patches, keys, -1); total != 0 {
					b.Fatalf("%d conflicts", total)
				}
			}
		})
	}
}

// BenchmarkOverrideFinder looks for useless overrides of 100 and 1,000
// layered files (layeredFiles) on 10 Deployments, and of 10 files on 100
// and 1,000 Deployments.
func BenchmarkOverrideFinder(b *testing.B) {
	for _, c := range []struct{ files, objects int }{{100, 10}, {1_000, 10}, {10, 100}, {10, 1_000}} {
		b.Run(fmt.Sprintf("files=%d/objects=%d", c.files, c.objects), func(b *testing.B) {
			patches, _ := layeredFiles(b, c.files)
			objs := make([]map[string]any, c.objects)
			for i := range objs {
				objs[i] = map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
					"metadata": map[string]any{"name": fmt.Sprintf("app-%d", i), "namespace": "shop"},
					"spec":     map[string]any{"replicas": int64(1)}}
			}
			b.ReportAllocs()
			for b.Loop() {
				var f OverrideFinder
				for _, obj := range objs {
					f.Object(obj, patches)
				}
				f.Useless()
			}
		})
	}
}

// relatedMembers is n files in groups of 10: each file from the third
// of its group on requires the file before it and the second, and each
// file from the second on conflicts with a file that does not exist and
// with "legacy", the first file of group 0, which every file names.
func relatedMembers(tb testing.TB, n int) []Member {
	tb.Helper()
	groups := n / 10
	members := make([]Member, n)
	for i := range members {
		g, k := i%groups, i/groups
		name, src := fmt.Sprintf("f%d", k), "[deployment.web]\nreplicas: 1\n"
		switch {
		case g == 0 && k == 0:
			name = "legacy"
		case k == 1:
			src = "# kpatch:conflicts: legacy missing\n" + src
		case k > 1:
			src = fmt.Sprintf("# kpatch:requires: f%d f1\n# kpatch:conflicts: legacy missing\n%s", k-1, src)
		}
		file := fmt.Sprintf("g%d/%s.kpatch", g, name)
		members[i] = Member{Group: fmt.Sprintf("g%d", g), Name: name, File: file, Meta: mustPatch(tb, file, src).Metadata()}
	}
	return members
}

// BenchmarkRelations relates 1,000 and 10,000 files (relatedMembers),
// checks them with every file enabled, and asks BuildsOn of each file
// and the second file of its group, and of each file and legacy.
func BenchmarkRelations(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			members := relatedMembers(b, n)
			states := make([]State, n)
			b.ReportAllocs()
			for b.Loop() {
				r := Relate(members)
				errs := r.Check(states)
				if errs[0] != nil || errs[n-1] == nil {
					b.Fatalf("legacy: %v; last: %v", errs[0], errs[n-1])
				}
				groups := n / 10
				for i, m := range members[2*groups:] {
					if second := members[groups+i%groups].File; !r.BuildsOn(m.File, second) {
						b.Fatalf("%s does not build on %s", m.File, second)
					}
					if r.BuildsOn(m.File, members[0].File) {
						b.Fatalf("%s builds on legacy", m.File)
					}
				}
			}
		})
	}
}

// BenchmarkMissingRequired checks the ${required} fields of 1,000 and
// 10,000 files, each requiring a field of the containers of a Deployment
// with 10 containers, which every container holds.
func BenchmarkMissingRequired(b *testing.B) {
	containers := make([]any, 10)
	for i := range containers {
		containers[i] = map[string]any{"name": fmt.Sprintf("c%d", i), "image": "app:1.0"}
	}
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": containers}}}}
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			patches := make([]*Patch, n)
			for i := range patches {
				patches[i] = mustPatch(b, fmt.Sprintf("f%05d.kpatch", i), "[deployment.*.containers[*]]\nimage.tag: ${required}\n[deployment.other]\nreplicas: ${required}\n")
			}
			ref := RefOf(obj, "shop")
			b.ReportAllocs()
			for b.Loop() {
				if errs := CheckRequired(obj, ref, patches, ApplyOptions{}); len(errs) != 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}
