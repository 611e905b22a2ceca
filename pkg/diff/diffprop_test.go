package diff

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"kpatch.dev/kpatch/internal/objecttest"
	"kpatch.dev/kpatch/pkg/kpatch"
	"sigs.k8s.io/yaml"
)

// TestDiffRoundTripsRandomPairs checks apply(BASE, diff(BASE, TARGET)) ==
// TARGET on random pairs: Deployments drawn from a pool of realistic
// parts (containers, env, args, ports, tolerations, volumes in any
// subset and order), and custom resources of random shape, where lists
// without keys, duplicates, type changes and odd keys and scalars abound.
func TestDiffRoundTripsRandomPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		var base, target map[string]any
		if i%2 == 0 {
			base, target = objecttest.Deployment(r), objecttest.Deployment(r)
		} else {
			base = objecttest.Widget(r)
			target = objecttest.Mutate(r, objecttest.DeepCopy(base), 0).(map[string]any)
			objecttest.RestoreIdentity(target)
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkRoundTripOrExplain(t, base, target)
		})
	}
}

// checkRoundTripOrExplain runs checkRoundTrip on one pair of objects; a
// root key that no path spells is the only error it accepts.
func checkRoundTripOrExplain(t *testing.T, base, target map[string]any) {
	t.Helper()
	b := []*Object{{Key: Key{kind: fmt.Sprint(base["kind"]), name: "w"}, Ref: kpatch.RefOf(base, ""), Obj: base}}
	tg := []*Object{{Key: b[0].Key, Ref: b[0].Ref, Obj: target}}
	pairs, _ := PairObjects(b, tg, false)
	if _, err := Print("yaml", pairs, b, tg); errors.Is(err, ErrUnaddressable) {
		return
	}
	checkRoundTrip(t, b, tg)
	if t.Failed() {
		bj, _ := json.Marshal(base)
		tj, _ := json.Marshal(target)
		t.Logf("base:   %s\ntarget: %s", bj, tj)
	}
}

// FuzzDiff checks apply(BASE, diff(BASE, TARGET)) == TARGET for two
// custom resources read from any YAML or JSON text.
func FuzzDiff(f *testing.F) {
	f.Add("spec: {a: 1, l: [x, y]}", "spec: {a: 2, l: [y, x, x]}")
	f.Add("items: [{name: a, v: 1}, {name: b}]", "items: [{name: b}, {name: c, m: {}}]")
	f.Add("l: [[1], {k: v}, '010']", "l: [{k: w}, [1, 2], 010]")
	f.Add(`{"x.y": {"": 1}, "s": "${v}"}`, `{"x.y": {"": 2}, "s": "$${v} #c"}`)
	f.Fuzz(func(t *testing.T, base, target string) {
		if len(base) > 4096 || len(target) > 4096 {
			return
		}
		b, tg := fuzzObject(base), fuzzObject(target)
		if b == nil || tg == nil {
			return
		}
		checkRoundTripOrExplain(t, b, tg)
	})
}

// fuzzObject reads a YAML or JSON text as a custom resource named w: a
// map is the object, anything else its spec. It returns nil for text
// that is not YAML.
func fuzzObject(text string) map[string]any {
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil
	}
	var v any
	if err := utiljson.Unmarshal(js, &v); err != nil {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		obj = map[string]any{"spec": v}
	}
	objecttest.RestoreIdentity(obj)
	return obj
}
