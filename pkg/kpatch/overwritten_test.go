package kpatch

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

const overwriteDeployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s}\nspec: {replicas: 1, template: {spec: {containers: [{name: main, image: docker.io/app:1.0}]}}}\n"

func overwriteObject(t *testing.T, name string) map[string]any {
	t.Helper()
	return mustObject(t, strings.Replace(overwriteDeployment, "%s", name, 1))
}

// overwritten runs an OverwriteFinder over the objects and returns its
// findings as text.
func overwritten(objs []map[string]any, patches ...*Patch) []string {
	var f OverwriteFinder
	for _, o := range objs {
		f.Object(o, patches)
	}
	var out []string
	for _, o := range f.Overwritten() {
		out = append(out, o.Error())
	}
	return out
}

// TestOverwrittenFile: the quick start's mistake, an image mirror that
// applies before the file that sets the image, is found, with the file
// that overwrites it and not the one that only inserts a container
// before the one it changed; ordered last, the mirror is not.
func TestOverwrittenFile(t *testing.T) {
	mirror := mustPatch(t, "mirror.kpatch", "# the mirror\n[@workload.*.allContainers]\nimage.registry: mirror.internal:5000\n")
	sidecar := mustPatch(t, "sidecar.kpatch", "[deployment.*.containers[+name=main]]\nname: sidecar\nimage: proxy:1.0\n")
	app := mustPatch(t, "app.kpatch", "[deployment.web]\nreplicas: 3\n[deployment.web.containers.name=main]\nimage.repository: ghcr.io/app\n")
	objs := []map[string]any{overwriteObject(t, "web")}

	got := overwritten(objs, mirror, sidecar, app)
	want := "mirror.kpatch:2:1: overwritten file: every change it makes is overwritten by later files (app.kpatch) on the object it changes, which comes out the same without it; a higher layer (# kpatch:layer: N) makes it apply after them"
	if len(got) != 1 || got[0] != want {
		t.Errorf("mirror first: got %q, want [%q]", got, want)
	}
	if got := overwritten(objs, sidecar, app, mirror); len(got) != 0 {
		t.Errorf("mirror last: got %q, want nothing", got)
	}
}

// TestOverwrittenFileEveryObject: a file is overwritten only when, on
// every object it changes, nothing of what it did survives; the objects it
// does not change (it fails, it matches none of their fields, they hold its
// values already) do not count either way.
func TestOverwrittenFileEveryObject(t *testing.T) {
	base := mustPatch(t, "base.kpatch", "[deployment.*]\nreplicas: 2\n")
	both := mustPatch(t, "both.kpatch", "[deployment.*]\nreplicas: 2\nlabels.team: shop\n")
	web := mustPatch(t, "web.kpatch", "[deployment.web]\nreplicas: 4\n")
	api := mustPatch(t, "api.kpatch", "[deployment.api]\nreplicas: 5\n")
	web2 := mustPatch(t, "web2.kpatch", "[deployment.web]\nlabels.team: web\n")
	fails := mustPatch(t, "fails.kpatch", "[deployment.*.containers.name=nope]\nimage.tag: \"2.0\"\n")
	web3 := mustPatch(t, "web3.kpatch", "[deployment.web.containers.name=nope]\nimage.tag: \"3.0\"\n")
	webObj, apiObj := overwriteObject(t, "web"), overwriteObject(t, "api")
	twoReplicas := overwriteObject(t, "db")
	twoReplicas["spec"].(map[string]any)["replicas"] = 2

	for _, c := range []struct {
		name    string
		objs    []map[string]any
		patches []*Patch
		want    []string
	}{
		{"overwritten on both objects, by two files", []map[string]any{webObj, apiObj}, []*Patch{base, web, api},
			[]string{"base.kpatch:1:1: overwritten file: every change it makes is overwritten by later files (web.kpatch, api.kpatch) on each of the 2 objects it changes, which come out the same without it; a higher layer (# kpatch:layer: N) makes it apply after them"}},
		{"kept on one object", []map[string]any{webObj, apiObj}, []*Patch{base, web}, nil},
		{"one change of two kept", []map[string]any{webObj}, []*Patch{both, web}, nil},
		{"every change overwritten", []map[string]any{webObj}, []*Patch{both, web, web2},
			[]string{"both.kpatch:1:1: overwritten file: every change it makes is overwritten by later files (web.kpatch, web2.kpatch) on the object it changes, which comes out the same without it; a higher layer (# kpatch:layer: N) makes it apply after them"}},
		{"unchanged object does not count", []map[string]any{twoReplicas, webObj}, []*Patch{base, web},
			[]string{"base.kpatch:1:1: overwritten file: every change it makes is overwritten by later files (web.kpatch) on the object it changes, which comes out the same without it; a higher layer (# kpatch:layer: N) makes it apply after them"}},
		{"a failing file changes nothing", []map[string]any{webObj}, []*Patch{fails, web3}, nil},
		{"the last file", []map[string]any{webObj}, []*Patch{web}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := overwritten(c.objs, c.patches...)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// BenchmarkOverwriteFinder: 50 files on 200 Deployments. "kept": each file
// sets its own label, so each is judged (one run of the files after it)
// on the first object only. "overwritten": every file sets the same field,
// the worst case, judged again on every object.
func BenchmarkOverwriteFinder(b *testing.B) {
	for _, size := range []struct{ files, objects int }{{5, 200}, {50, 200}, {50, 2000}} {
		objs := make([]map[string]any, size.objects)
		for i := range objs {
			objs[i] = mustObject(b, strings.Replace(overwriteDeployment, "%s", "web-"+strings.Repeat("x", i%7)+string(rune('a'+i%26)), 1))
		}
		for _, c := range []struct{ name, entry string }{
			{"kept", "labels.l%d: v"},
			{"overwritten", "replicas: %d"},
		} {
			patches := make([]*Patch, size.files)
			for i := range patches {
				entry := strings.Replace(c.entry, "%d", strconv.Itoa(i+2), 1)
				patches[i] = mustPatch(b, "f"+strconv.Itoa(i)+".kpatch", "[deployment.*]\n"+entry+"\n")
			}
			b.Run(fmt.Sprintf("%s/files=%d/objects=%d", c.name, size.files, size.objects), func(b *testing.B) {
				for b.Loop() {
					var f OverwriteFinder
					for _, o := range objs {
						f.Object(o, patches)
					}
					f.Overwritten()
				}
			})
		}
	}
}
