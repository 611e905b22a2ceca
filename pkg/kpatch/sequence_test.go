package kpatch

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// fileByFile is what a Sequence must agree with: each file applied alone
// to the result of the ones before it, changed when its result differs.
func fileByFile(obj map[string]any, patches []*Patch, opts ApplyOptions) (map[string]any, []bool, []error) {
	changed, errs := make([]bool, len(patches)), make([]error, len(patches))
	for i, p := range patches {
		next, err := ApplyContext(context.Background(), obj, []*Patch{p}, opts)
		errs[i] = err
		if err == nil {
			changed[i] = !jsonvalue.Equal(obj, next)
			obj = next
		}
	}
	return obj, changed, errs
}

// checkSequence applies patches through a Sequence and compares each
// file's outcome and the result with fileByFile's; it returns the result.
// The Sequence makes its maps with ApplyOptions.NewMap and its lists with
// ApplyOptions.NewList, cut one after the other from one slab, as the
// webhook's does, file by file with maps.Clone.
func checkSequence(t *testing.T, name string, obj map[string]any, patches []*Patch) map[string]any {
	t.Helper()
	before := jsonvalue.DeepCopy(obj)
	want, wantChanged, wantErrs := fileByFile(obj, patches, ApplyOptions{Namespace: "shop"})
	newMap := func(size int) map[string]any { madeMaps++; return make(map[string]any, size) }
	var slab []any
	newList := func(size int) []any {
		madeLists++
		if cap(slab)-len(slab) < size {
			slab = make([]any, 0, 64+size)
		}
		l := slab[len(slab) : len(slab) : len(slab)+size]
		slab = slab[:len(slab)+size]
		return l
	}
	seq := NewSequence(context.Background(), obj, ApplyOptions{Namespace: "shop", NewMap: newMap, NewList: newList})
	defer seq.Close()
	for i, p := range patches {
		changed, err := seq.Apply(p)
		if fmt.Sprint(err) != fmt.Sprint(wantErrs[i]) || changed != wantChanged[i] {
			t.Errorf("%s: file %d (%s): changed %v, err %v; file by file: changed %v, err %v",
				name, i, p.Name(), changed, err, wantChanged[i], wantErrs[i])
		}
	}
	got := seq.Object()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: result\n%v\nfile by file\n%v", name, got, want)
	}
	if !reflect.DeepEqual(obj, before) {
		t.Errorf("%s: the input was modified", name)
	}
	return got
}

// TestSequenceMatchesFileByFile: on the conformance corpus, applied once
// and again to its own result, a Sequence tells each file's outcome and
// builds the result as files applied one by one do.
func TestSequenceMatchesFileByFile(t *testing.T) {
	corpusCases(t, func(name string, patches []*Patch, objs []map[string]any) {
		for _, obj := range objs {
			once := checkSequence(t, name, obj, patches)
			checkSequence(t, name+" (again)", once, patches)
		}
	})
	patches, data := benchPatchSet(t)
	madeMaps, madeLists = 0, 0
	once := checkSequence(t, "bench", decodeObject(t, data), patches)
	if madeMaps == 0 {
		t.Error("the bench made no map with ApplyOptions.NewMap")
	}
	// its files copy lists (containers, env) and insert into them
	// (containers[-], args[-]): every such list is NewList's
	if madeLists < 8 {
		t.Errorf("the bench made %d lists with ApplyOptions.NewList, want its 8 copies and insertions at least", madeLists)
	}
	checkSequence(t, "bench (again)", once, patches)
}

// madeMaps and madeLists count the maps and lists checkSequence's NewMap
// and NewList made.
var madeMaps, madeLists int

// TestSequenceUnchangedAfterUndoing: a file that changes a value and then
// sets it back, or writes inside a map and then sets the whole map back,
// leaves the object unchanged, also on maps an earlier file copied.
func TestSequenceUnchangedAfterUndoing(t *testing.T) {
	obj := mustObject(t, webDeployment)
	copier := mustPatch(t, "copier.kpatch", "[deployment.web]\nlabels.tier: web\ncontainers[name=app].env[name=LOG_LEVEL].value: debug\n")
	undoers := []*Patch{
		mustPatch(t, "scalar.kpatch", "[deployment.web]\nreplicas: 3\n[deployment.web]\nreplicas: 2\n"),
		mustPatch(t, "map.yaml", "- target: deployment.web\n  patch:\n    labels.app: other\n- target: deployment.web\n  patch:\n    labels: {app: web, tier: web}\n"),
		mustPatch(t, "list.kpatch", "[deployment.web]\ncontainers[name=app].args[-]: --x\n[deployment.web]\ncontainers[name=app].args[delete]:\n"),
		mustPatch(t, "env.yaml", "- target: deployment.web\n  patch:\n    containers[name=app].env[name=LOG_LEVEL].value: info\n"+
			"- target: deployment.web\n  patch:\n    containers[name=app].env: [{name: LOG_LEVEL, value: debug}]\n"),
		mustPatch(t, "merge.yaml", "- target: deployment.web\n  type: merge\n  patch:\n    metadata: {labels: {tier: web}}\n"),
	}
	seq := NewSequence(context.Background(), obj, ApplyOptions{})
	defer seq.Close()
	if changed, err := seq.Apply(copier); err != nil || !changed {
		t.Fatalf("copier: changed %v, %v", changed, err)
	}
	for _, p := range undoers {
		if changed, err := seq.Apply(p); err != nil || changed {
			t.Errorf("%s: changed %v, %v; want unchanged", p.Name(), changed, err)
		}
	}
	checkSequence(t, "undoers", obj, append([]*Patch{copier}, undoers...))
}

// TestSequenceRecoversAPanic: a panic while a file applies fails that
// file alone, rolled back, and the next file applies.
func TestSequenceRecoversAPanic(t *testing.T) {
	obj := mustObject(t, webDeployment)
	seq := NewSequence(context.Background(), obj, ApplyOptions{})
	defer seq.Close()
	if _, err := seq.Apply(mustPatch(t, "a.kpatch", "[deployment.web]\nreplicas: 5\n")); err != nil {
		t.Fatal(err)
	}
	var pe *PanicError
	if changed, err := seq.Apply(nil); changed || !errors.As(err, &pe) || len(pe.Stack) == 0 {
		t.Fatalf("nil patch: changed %v, %v; want a *PanicError", changed, err)
	}
	if changed, err := seq.Apply(mustPatch(t, "b.kpatch", "[deployment.web]\nlabels.b: x\n")); err != nil || !changed {
		t.Fatalf("after the panic: changed %v, %v", changed, err)
	}
	spec := seq.Object()["spec"].(map[string]any)
	if spec["replicas"] != int64(5) {
		t.Errorf("replicas %v", spec["replicas"])
	}
}

// TestSequenceRandom applies generated files, some undoing what others
// did, through a Sequence and one by one.
func TestSequenceRandom(t *testing.T) {
	entries := []string{
		"replicas: %d", "labels.app: web%.0d", "labels.team: t%d", "labels.team[delete]:%.0d",
		"containers[name=app].image.tag: v%d", "containers[name=app].image.tag: 1.2.3%.0d",
		"containers[name=app].env[name=LOG_LEVEL].value: info%.0d", "containers[name=app].env[name=LOG_LEVEL].value: l%d",
		"containers[name=app].args[-]: --flag-%d", "containers[name=app].args[delete=0]:%.0d",
		"containers[name=app].env[delete=name=X%d]:", "containers[name=app].env[-]: {name: X%d, value: v}",
		"containers[*].securityContext.runAsNonRoot: true%.0d", "containers[*].securityContext[delete]:%.0d",
		"nodeSelector[kubernetes.io/arch]: arch%d", "nodeSelector[delete]:%.0d",
		"containers[name=app].ports[name=http].containerPort: %d", "containers[name=app].ports[name=http].containerPort: 8080%.0d",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	obj := mustObject(t, webDeployment)
	for i := range 200 {
		var patches []*Patch
		for f := range 1 + rng.IntN(5) {
			var b strings.Builder
			for range 1 + rng.IntN(3) {
				b.WriteString("- target: deployment.web\n  patch:\n")
				for range 1 + rng.IntN(3) {
					entry := entries[rng.IntN(len(entries))]
					k, v, _ := strings.Cut(fmt.Sprintf(entry, rng.IntN(3)), ": ")
					k = strings.TrimSuffix(k, ":")
					if v == "" {
						v = "true"
					}
					fmt.Fprintf(&b, "    %q: %s\n", k, v)
				}
			}
			p, err := ParseAndCompile(fmt.Sprintf("gen%d-%d.yaml", i, f), []byte(b.String()))
			if err != nil {
				continue // two entries of one key in a map
			}
			patches = append(patches, p)
		}
		obj = checkSequence(t, fmt.Sprintf("set %d", i), obj, patches)
	}
}
