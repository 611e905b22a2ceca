package kpatch

import (
	"errors"
	"reflect"
	"testing"
)

const absentPod = `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: main
    image: nginx:1.25
    ports:
    - containerPort: 80
  - name: side
    image: busybox
`

const absentDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - name: main
        image: nginx:1.25
`

const absentCronJob = `
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: main
            image: nginx:1.25
`

// TestEveryItemOfAbsentList: a path through every item of a list the
// object does not have (a field on a list the schema knows, [*],
// allContainers) writes nothing, at any depth, for entries and for
// insertions into a list of each item; no map stands in for the list.
func TestEveryItemOfAbsentList(t *testing.T) {
	for _, c := range []struct{ name, obj, patch string }{
		{"entry on a header list", absentPod, "[pod.p.initContainers]\nimage.registry: mirror.corp\nimagePullPolicy: Always\n"},
		{"entry on a key list", absentPod, "[pod.p]\ninitContainers.image: x\n"},
		{"star", absentPod, "[pod.p.initContainers[*]]\nimage.registry: mirror.corp\n"},
		{"list in a list", absentPod, "[pod.p]\ninitContainers.env.value: x\ninitContainers.env[name=A].value: x\n"},
		{"list of some items", absentPod, "[pod.p]\ncontainers.env.value: x\ncontainers.volumeMounts.readOnly: true\n"},
		{"insertion under every item", absentDeployment, "[deployment.web.initContainers.env[-]]\nname: A\nvalue: b\n"},
		{"insertion anchored on an item", absentDeployment, "[deployment.web.initContainers.env[+name=A]]\nname: B\nvalue: c\n"},
		{"insertion key", absentCronJob, "[cronjob.nightly]\ninitContainers.args[-]: --verbose\n"},
		{"workload entry", absentCronJob, "[@workload.*]\ninitContainers.image.registry: mirror.corp\n"},
		{"workload insertion", absentCronJob, "[@workload.*.ephemeralContainers.env[-]]\nname: A\n"},
		{"allContainers on a missing spec", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n", "[@workload.*]\nallContainers.image.registry: mirror.corp\ninitContainers.image: x\n"},
		{"missing maps on the way", "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\n", "[cronjob.nightly]\ninitContainers.image: x\ncontainers[*].image: y\n"},
		{"empty list", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n  initContainers: []\n", "[pod.p.initContainers]\nimage.registry: mirror.corp\n[pod.p.containers.env[-]]\nname: A\n"},
		{"null list", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers: null\n", "[pod.p.initContainers]\nimage: x\n[@workload.*]\nallContainers.image: x\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := mustObject(t, c.obj)
			before := deepCopy(t, obj)
			out, err := mustPatch(t, "f.kpatch", c.patch).Apply(obj, ApplyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(normalize(t, out), before) {
				t.Errorf("the object changed:\n%s", printed(t, out))
			}
		})
	}
}

// TestEveryItemOfPresentList: the same paths on lists that exist patch
// every item; an item without the nested list gets nothing from a field
// through it, and gets the list from an insertion into it.
func TestEveryItemOfPresentList(t *testing.T) {
	obj := mustObject(t, absentPod)
	p := mustPatch(t, "f.kpatch", "[pod.p]\ncontainers.ports.protocol: TCP\ncontainers.image.registry: mirror.corp\n[pod.p.containers.env[-]]\nname: A\nvalue: b\n")
	out, err := p.Apply(obj, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := mustObject(t, `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: main
    image: mirror.corp/nginx:1.25
    ports:
    - {containerPort: 80, protocol: TCP}
    env: [{name: A, value: b}]
  - name: side
    image: mirror.corp/busybox
    env: [{name: A, value: b}]
`)
	if got := normalize(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %s\nwant %s", printed(t, got), printed(t, want))
	}
}

// TestExplicitCreationOnAbsentList: an insertion into the absent list
// itself, a field that is no list, and an insertion through
// allContainers still create what they need; a selector or an index on
// the absent list is still an error.
func TestExplicitCreationOnAbsentList(t *testing.T) {
	for _, c := range []struct{ name, patch, want string }{
		{"insertion into the list", "[pod.p.initContainers[-]]\nname: setup\nimage: busybox\n",
			"initContainers: [{name: setup, image: busybox}]\n"},
		{"map field", "[pod.p]\nnodeSelector.disk: ssd\n", "nodeSelector: {disk: ssd}\n"},
		{"allContainers insertion", "[pod.p.allContainers[-]]\nname: extra\nimage: busybox\n",
			"containers: [{name: extra, image: busybox}]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := mustObject(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
			out, err := mustPatch(t, "f.kpatch", c.patch).Apply(obj, ApplyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := mustObject(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  "+c.want)
			if got := normalize(t, out); !reflect.DeepEqual(got, want) {
				t.Errorf("got  %s\nwant %s", printed(t, got), printed(t, want))
			}
		})
	}
	for _, c := range []struct {
		name, patch string
		sentinel    error
	}{
		{"selector", "[pod.p.initContainers[name=setup]]\nimage: x\n", ErrNoMatch},
		{"index", "[pod.p]\ninitContainers.0.image: x\n", ErrIndex},
		{"allContainers selector", "[pod.p]\nallContainers[name=setup].image: x\n", ErrNoMatch},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := mustObject(t, absentPod)
			_, err := mustPatch(t, "f.kpatch", c.patch).Apply(obj, ApplyOptions{})
			if !errors.Is(err, c.sentinel) {
				t.Errorf("got %v, want %v", err, c.sentinel)
			}
		})
	}
}

// TestCustomResourceFieldOnAbsentValue: without a schema nothing says
// that a missing value is a list, so a path is taken literally and
// creates maps, as on any custom resource.
func TestCustomResourceFieldOnAbsentValue(t *testing.T) {
	obj := mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
	out, err := mustPatch(t, "f.kpatch", "[widget.w]\nspec.items.name: x\n").Apply(obj, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {items: {name: x}}\n")
	if got := normalize(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("got %s", printed(t, got))
	}
}
