package kpatch

import (
	"strings"
	"testing"
)

// TestUselessOverrides: an entry of a later file that sets the value an
// earlier file already set, on every object it matches, is useless; one
// that changes some object is not, nor one the object alone set.
func TestUselessOverrides(t *testing.T) {
	base := mustPatch(t, "base.kpatch", "[deployment.*]\nreplicas: 2\nlabels.team: shop\n")
	web := mustPatch(t, "web.kpatch", "[deployment.web]\nreplicas: 2\nlabels.tier: front\n")
	all := mustPatch(t, "prod.kpatch", "# kpatch:layer: 1\n[deployment.*]\nlabels.team: shop\nreplicas: 3\n[deployment.*.containers[name=main]]\nimage.tag: \"1.0\"\n")
	objs := []string{
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {tier: front}}\nspec: {template: {spec: {containers: [{name: main, image: app:1.0}]}}}\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec: {template: {spec: {containers: [{name: main, image: app:2.0}]}}}\n",
	}
	var f OverrideFinder
	for _, o := range objs {
		f.Object(mustObject(t, o), []*Patch{base, web, all})
	}
	var got []string
	for _, u := range f.Useless() {
		got = append(got, u.Error())
	}
	want := []string{
		`web.kpatch:2:1: useless override: spec.replicas is already 2 on every object this entry matches (set by base.kpatch:2:1); the entry changes nothing`,
		`prod.kpatch:3:1: useless override: metadata.labels.team is already "shop" on every object this entry matches (set by base.kpatch:3:1); the entry changes nothing`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
