package schema

import (
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func obj(t *testing.T, src string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(src), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, annotations: {a: b}}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - {name: main, image: nginx, imagePullPolicy: Always}
      - {name: side, image: busybox}
`

// set returns a copy of obj with the maps and the list item on path
// copied and the value set: unchanged parts shared, as the engine leaves
// them.
func set(obj map[string]any, value any, path ...any) map[string]any {
	root := clone(obj)
	var cur any = root
	for i, p := range path {
		last := i == len(path)-1
		switch k := p.(type) {
		case string:
			m := cur.(map[string]any)
			if last {
				m[k] = value
				return root
			}
			next := m[k]
			switch x := next.(type) {
			case map[string]any:
				next = clone(x)
			case []any:
				next = append([]any(nil), x...)
			case nil:
				next = map[string]any{}
			}
			m[k] = next
			cur = next
		case int:
			l := cur.([]any)
			if last {
				l[k] = value
				return root
			}
			next := clone(l[k].(map[string]any))
			l[k] = next
			cur = next
		}
	}
	return root
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestCheckBuiltin(t *testing.T) {
	c := &Checker{}
	cases := []struct {
		name  string
		value any
		path  []any
		want  string // "" for none
	}{
		{"annotation number", int64(1), []any{"metadata", "annotations", "version"}, "metadata.annotations.version: the field is a string, not the number 1"},
		{"annotation text", "1.0", []any{"metadata", "annotations", "version"}, ""},
		{"label boolean", true, []any{"metadata", "labels"}, "metadata.labels: the field is a map, not the boolean true"},
		{"enum", "Allways", []any{"spec", "template", "spec", "containers", 1, "imagePullPolicy"}, `spec.template.spec.containers[1].imagePullPolicy: "Allways" is not one of Always, IfNotPresent, Never (did you mean Always?)`},
		{"enum empty", "", []any{"spec", "template", "spec", "containers", 1, "imagePullPolicy"}, ""},
		{"enum value", "Never", []any{"spec", "template", "spec", "containers", 1, "imagePullPolicy"}, ""},
		{"unknown field", int64(3), []any{"spec", "replcas"}, `spec.replcas: DeploymentSpec has no field "replcas" (did you mean replicas?)`},
		{"integer text", "three", []any{"spec", "replicas"}, `spec.replicas: the field is an integer, not the string "three"`},
		{"integer digits as text", "3", []any{"spec", "replicas"}, `spec.replicas: the field is an integer, not the string "3"`},
		{"fraction", 1.5, []any{"spec", "replicas"}, "spec.replicas: the field is an integer, not the number 1.5"},
		{"integral float", 3.0, []any{"spec", "replicas"}, ""},
		{"out of range", int64(1) << 40, []any{"spec", "replicas"}, "the field is a 32-bit integer, and 1099511627776 is out of its range"},
		{"quantity", "500m", []any{"spec", "template", "spec", "containers", 0, "resources"}, "the field is ResourceRequirements, not the string"},
		{"bad quantity", map[string]any{"cpu": "lots"}, []any{"spec", "template", "spec", "containers", 0, "resources", "limits"}, "spec.template.spec.containers[0].resources.limits.cpu: not a valid Quantity"},
		{"good quantity", map[string]any{"cpu": "500m", "memory": int64(1024)}, []any{"spec", "template", "spec", "containers", 0, "resources", "limits"}, ""},
		{"int-or-string", "25%", []any{"spec", "strategy", "rollingUpdate", "maxSurge"}, ""},
		{"int-or-string boolean", true, []any{"spec", "strategy", "rollingUpdate", "maxSurge"}, "not a valid IntOrString"},
		{"time", "yesterday", []any{"metadata", "creationTimestamp"}, "metadata.creationTimestamp: not a valid Time"},
		{"null", nil, []any{"spec", "replicas"}, ""},
		{"new container", map[string]any{"name": "x", "image": "y", "ports": []any{map[string]any{"containerPort": "80"}}}, []any{"spec", "template", "spec", "containers", 1}, `spec.template.spec.containers[1].ports[0].containerPort: the field is an integer, not the string "80"`},
		{"case", "x", []any{"metadata", "Name"}, `metadata.Name: ObjectMeta has no field "Name" (did you mean name?)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := obj(t, deployment)
			err := c.Check(before, set(before, tc.value, tc.path...))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Errorf("passed, want %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("%q, want %q", err, tc.want)
			case tc.want != "" && !errors.Is(err, ErrRefused):
				t.Errorf("%v does not wrap ErrRefused", err)
			}
		})
	}
}

// TestCheckReadsOnlyWhatChanged: a refused value the object held before
// is not read; maps and lists the change shares with the object are not
// walked, and an item moved by an insertion is not read again.
func TestCheckReadsOnlyWhatChanged(t *testing.T) {
	c := &Checker{}
	before := set(obj(t, deployment), "Allways", "spec", "template", "spec", "containers", 0, "imagePullPolicy")
	if err := c.Check(before, set(before, "web", "metadata", "labels", "team")); err != nil {
		t.Errorf("a value the files did not change: %v", err)
	}
	if err := c.Check(before, set(before, "nginx:2", "spec", "template", "spec", "containers", 0, "image")); err != nil {
		t.Errorf("a change beside it: %v", err)
	}
	if err := c.Check(before, set(before, "Never", "spec", "template", "spec", "containers", 0, "imagePullPolicy")); err != nil {
		t.Errorf("corrected: %v", err)
	}
	spec := before["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	inserted := append([]any{map[string]any{"name": "init", "image": "x"}}, spec["containers"].([]any)...)
	if err := c.Check(before, set(before, inserted, "spec", "template", "spec", "containers")); err != nil {
		t.Errorf("an insertion before the item: %v", err)
	}
	if err := c.Check(nil, before); err == nil {
		t.Errorf("a new object is read whole")
	}
	cr := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": map[string]any{"size": "x"}}
	if err := c.Check(nil, cr); err != nil {
		t.Errorf("a kind without a schema: %v", err)
	}
}

const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [mode]
            properties:
              size: {type: integer}
              mode: {type: string, enum: [fast, slow]}
              port: {x-kubernetes-int-or-string: true}
              labels: {type: object, additionalProperties: {type: string}}
              items: {type: array, items: {type: object, properties: {name: {type: string}}}}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

func TestCheckCRD(t *testing.T) {
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(crd), &def); err != nil {
		t.Fatal(err)
	}
	crds := NewCRDs([]*apiextensionsv1.CustomResourceDefinition{&def})
	c := &Checker{CRDs: func() *CRDs { return crds }}
	before := obj(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {mode: fast, size: 1}\n")
	cases := []struct {
		name  string
		value any
		path  []any
		want  string
	}{
		{"integer", int64(2), []any{"spec", "size"}, ""},
		{"integer text", "2", []any{"spec", "size"}, `spec.size: the field is an integer, not the string "2"`},
		{"enum", "fastt", []any{"spec", "mode"}, `spec.mode: "fastt" is not one of fast, slow (did you mean fast?)`},
		{"unknown", "x", []any{"spec", "colour"}, `spec.colour: an object has no field "colour"`},
		{"required", map[string]any{"size": int64(1)}, []any{"spec"}, `spec: the required field "mode" is missing`},
		{"int-or-string", "80", []any{"spec", "port"}, ""},
		{"map of strings", map[string]any{"a": int64(1)}, []any{"spec", "labels"}, "spec.labels.a: the field is a string, not the number 1"},
		{"list item", map[string]any{"name": int64(1)}, []any{"spec", "items"}, "spec.items: the field is a list, not a map"},
		{"preserved", map[string]any{"anything": []any{int64(1)}}, []any{"spec", "extra"}, ""},
		{"metadata", int64(1), []any{"metadata", "labels", "x"}, "metadata.labels.x: the field is a string, not the number 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Check(before, set(before, tc.value, tc.path...))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
	if crds.Len() != 1 {
		t.Errorf("Len %d", crds.Len())
	}
}

// TestCheckReportsTheFirstProblemByName checks that a change with several
// problems in one map reports the one whose key sorts first, on every
// call, though the walk of a change without problems takes the keys in
// the map's own (random) order.
func TestCheckReportsTheFirstProblemByName(t *testing.T) {
	c := &Checker{}
	before := obj(t, deployment)
	after := before
	for _, k := range []string{"zeta", "mu", "alpha", "kappa", "omega", "beta", "gamma", "delta", "rho"} {
		after = set(after, "x", "spec", k)
	}
	after = set(after, "many", "spec", "replicas") // a value problem, after "alpha"
	for range 50 {
		var fe *FieldError
		if err := c.Check(before, after); !errors.As(err, &fe) || fe.Field != "spec.alpha" {
			t.Fatalf("error %v, want the unknown field spec.alpha", err)
		}
	}
}
