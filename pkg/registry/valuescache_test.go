package registry

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// teamBinding is the registry of valuesConfigMap with its file
// team.kpatch, and a func that binds it for a Deployment web in a
// Namespace named after its value of team.
func teamBinding(t *testing.T) (*Registry, func(team string) (*kpatch.Variables, error)) {
	t.Helper()
	var c Compiler
	reg := c.Build([]corev1.ConfigMap{valuesConfigMap}, nil).Registry
	var fv *fileValues
	for p, v := range reg.values {
		if strings.HasSuffix(p.Name(), "team.kpatch") {
			fv = v
		}
	}
	if fv == nil {
		t.Fatal("team.kpatch does not depend on the Namespace")
	}
	return reg, func(team string) (*kpatch.Variables, error) {
		ns := namespace(team, map[string]string{"values.kpatch.dev/team": team})
		ref := kpatch.ObjectRef{Kind: "Deployment", Namespace: team, Name: "web"}
		return boundVars(fv.forObject(reg.bound, NewObjectContext("Deployment", &ref, ns, ValueAnnotations(ns.Annotations), nil)))
	}
}

// TestBoundCacheBound keeps at most BoundCacheSize bindings: when full,
// the least recently used quarter goes, and a binding found since stays.
func TestBoundCacheBound(t *testing.T) {
	reg, bind := teamBinding(t)
	first := map[string]*kpatch.Variables{}
	for i := range BoundCacheSize {
		team := fmt.Sprintf("t-%d", i)
		p, err := bind(team)
		if err != nil {
			t.Fatal(err)
		}
		first[team] = p
	}
	if n := reg.bound.len(); n != BoundCacheSize {
		t.Fatalf("%d entries", n)
	}
	if p, _ := bind("t-0"); p != first["t-0"] { // found: the most recently used
		t.Fatal("t-0 bound again")
	}
	if _, err := bind("t-new"); err != nil {
		t.Fatal(err)
	}
	if n := reg.bound.len(); n != BoundCacheSize*3/4 {
		t.Errorf("%d entries after the cache filled, want %d", n, BoundCacheSize*3/4)
	}
	if p, _ := bind("t-0"); p != first["t-0"] {
		t.Error("t-0, used last, was dropped")
	}
	if p, _ := bind("t-1"); p == first["t-1"] {
		t.Error("t-1, the least recently used, was kept")
	}
}

// TestBoundCacheHit: a binding found in the cache costs no allocation.
func TestBoundCacheHit(t *testing.T) {
	reg, _ := teamBinding(t)
	var fv *fileValues
	for _, v := range reg.values {
		if v.inputs["team"] {
			fv = v
		}
	}
	oc := &ObjectContext{namespace: namespace("a", nil), nsValues: ValueAnnotations(map[string]string{"values.kpatch.dev/team": "a"}), object: "Deployment a/web"}
	want, err := fv.forObject(reg.bound, oc)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if p, _ := fv.forObject(reg.bound, oc); p != want {
			t.Fatal("bound again")
		}
	}); n != 0 {
		t.Errorf("%v allocations per hit", n)
	}
}

// TestBoundCacheFailures: a failed binding is kept per Namespace, whose
// name its message gives.
func TestBoundCacheFailures(t *testing.T) {
	_, bind := teamBinding(t)
	for range 2 {
		for _, ns := range []string{"Bad-1", "Bad-2"} {
			if _, err := bind(ns); err == nil || !strings.Contains(err.Error(), "namespace "+ns+" annotation values.kpatch.dev/team") {
				t.Errorf("%s: %v", ns, err)
			}
		}
	}
}

// TestBoundCacheConcurrent binds from many goroutines, each Namespace
// to its own value (go test -race).
func TestBoundCacheConcurrent(t *testing.T) {
	_, bind := teamBinding(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				team := fmt.Sprintf("t-%d", (i+g*50)%300)
				p, err := bind(team)
				if err != nil || p.Values["team"] != team {
					t.Errorf("%s: %v %v", team, err, p)
					return
				}
			}
		})
	}
	wg.Wait()
}

// boundVars are the values a binding's file is bound to.
func boundVars(f apply.File, err error) (*kpatch.Variables, error) {
	if err != nil {
		return nil, err
	}
	return f.(apply.PatchFile).Patch.Variables(), nil
}
