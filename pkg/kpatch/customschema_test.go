package kpatch

import (
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/pkg/fieldtype"
	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// widgetSchema is the OpenAPI schema of a CRD's version: string,
// integer, number and boolean fields, an enum, a map, lists of scalars
// and objects, and a free-form field.
const widgetSchema = `type: object
properties:
  spec:
    type: object
    properties:
      version: {type: string}
      replicas: {type: integer}
      ratio: {type: number}
      paused: {type: boolean}
      mode: {type: string, enum: [Fast, Safe]}
      port: {x-kubernetes-int-or-string: true}
      labels: {type: object, additionalProperties: {type: string}}
      args: {type: array, items: {type: string}}
      image: {type: string}
      items:
        type: array
        items:
          type: object
          properties:
            name: {type: string}
            tag: {type: string}
            weight: {type: integer}
      extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

func widgetSchemas(t testing.TB) func(apiVersion, kind string) *CustomResourceSchema {
	t.Helper()
	var props apiextensionsv1.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(widgetSchema), &props); err != nil {
		t.Fatal(err)
	}
	s := NewCustomResourceSchema("Widget", &props)
	return func(apiVersion, kind string) *CustomResourceSchema {
		if apiVersion == "example.com/v1" && kind == "Widget" {
			return s
		}
		return nil
	}
}

const widgetObject = `apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec:
  image: nginx:1.10
  items: [{name: a, tag: "1.0"}]
`

// TestCustomResourceFieldsTakeTheirSchemaType: with a custom resource's
// schema, what a file writes takes the field's type, as in a built-in
// kind: constants and variables, whole maps and lists, insertions,
// labels, merge patches. Without the schema, the value is as YAML read
// it.
func TestCustomResourceFieldsTakeTheirSchemaType(t *testing.T) {
	vars, err := LoadVariables([]byte(textValues))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"w.kpatch": `[widget.w]
spec.version: 1.10
spec.replicas: "3"
spec.ratio: "0.5"
spec.paused: "true"
spec.port: 8080
spec.labels.minor: ${values.minor}
spec.args[-]: 1.0
spec.args[-]: ${values.octal}
spec.extra.kept: 1.10
spec.image.tag: ${values.ver}
spec.items.tag: ${values.minor}
labels.release: 2.10

[widget.w.spec.items[-]]
name: b
tag: 010
weight: ${values.n}
`,
		"w.yaml": `- target: widget.w
  type: merge
  patch:
    spec: {mode: Safe, labels: {answer: "${values.answer}", plain: on}}
- target: widget.w
  patch:
    spec.extra.list: [1.10, "${values.octal}"]
    spec.items[name=a].weight: "7"
`,
	}
	want := map[string]any{
		"version": "1.10", "replicas": int64(3), "ratio": 0.5, "paused": true, "port": int64(8080), "mode": "Safe",
		"labels": map[string]any{"minor": "1.10", "answer": "yes", "plain": "on"},
		"args":   []any{"1.0", "010"},
		"extra":  map[string]any{"kept": 1.1, "list": []any{1.1, 8}},
		"image":  "nginx:1.0",
		"items": []any{
			map[string]any{"name": "a", "tag": "1.10", "weight": int64(7)},
			map[string]any{"name": "b", "tag": "010", "weight": int64(3)},
		},
	}
	obj := mustObject(t, widgetObject)
	opts := ApplyOptions{Schemas: widgetSchemas(t)}
	for _, name := range []string{"w.kpatch", "w.yaml"} {
		p, err := mustPatch(t, name, files[name]).Bind(vars)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if obj, err = p.Apply(obj, opts); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	spec := obj["spec"].(map[string]any)
	for k, w := range want {
		if !jsonvalue.Equal(spec[k], w) {
			t.Errorf("spec.%s = %#v, want %#v", k, spec[k], w)
		}
	}
	if got := obj["metadata"].(map[string]any)["labels"]; !reflect.DeepEqual(got, map[string]any{"release": "2.10"}) {
		t.Errorf("labels %#v, want release \"2.10\"", got)
	}
	assertPlain(t, obj)

	// the same files without the schema: values as YAML read them
	obj = mustObject(t, widgetObject)
	p, err := mustPatch(t, "w.kpatch", files["w.kpatch"]).Bind(vars)
	if err != nil {
		t.Fatal(err)
	}
	if obj, err = p.Apply(obj, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := obj["spec"].(map[string]any)["version"]; got != 1.1 {
		t.Errorf("without a schema, spec.version = %#v, want the number 1.1", got)
	}
}

// TestCustomResourceValueThatDoesNotFit: a value that the field's type
// cannot take fails the file at the value's position, naming the field,
// and leaves the object as it was.
func TestCustomResourceValueThatDoesNotFit(t *testing.T) {
	vars, err := LoadVariables([]byte("values:\n  half: 2.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, src, want string }{
		{"a.kpatch", "[widget.w]\nspec.replicas: many\n", `a.kpatch:2:16: Widget w: spec.replicas: the field wants an integer, not "many"`},
		{"b.kpatch", "[widget.w]\nspec.replicas: ${values.half}\n", "b.kpatch:2:16: Widget w: spec.replicas: the field wants an integer, not 2.5 (from ${values.half})"},
		{"c.kpatch", "[widget.w]\nspec.mode: Fats\n", `c.kpatch:2:12: Widget w: spec.mode: "Fats" is not one of Fast, Safe (did you mean Fast?)`},
		{"d.yaml", "- target: widget.w\n  type: merge\n  patch:\n    spec: {paused: maybe}\n", `d.yaml:4:20: Widget w: spec.paused: the field wants a boolean, not "maybe"`},
		{"e.kpatch", "[widget.w.spec.items[-]]\nname: c\nweight: heavy\n", `e.kpatch:3:9: Widget w: weight: the field wants an integer, not "heavy"`},
	} {
		p, err := mustPatch(t, tt.name, tt.src).Bind(vars)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		obj := mustObject(t, widgetObject)
		out, err := p.Apply(obj, ApplyOptions{Schemas: widgetSchemas(t)})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v\nwant %s", tt.name, err, tt.want)
		}
		if !reflect.DeepEqual(out, obj) {
			t.Errorf("%s: the object changed: %#v", tt.name, out)
		}
	}
}

// TestCustomResourceSchemaTypesReplacements: a replacement into a custom
// resource's string field writes the source's text.
func TestCustomResourceSchemaTypesReplacements(t *testing.T) {
	schemas := widgetSchemas(t)
	types := CustomFieldTypes(schemas)
	for _, tt := range []struct {
		path []string
		want fieldtype.Type
	}{
		{[]string{"spec", "version"}, fieldtype.String},
		{[]string{"spec", "replicas"}, fieldtype.Integer},
		{[]string{"spec", "ratio"}, fieldtype.Number},
		{[]string{"spec", "paused"}, fieldtype.Boolean},
		{[]string{"spec", "items", "0", "tag"}, fieldtype.String},
		{[]string{"spec", "labels", "x"}, fieldtype.String},
		{[]string{"metadata", "annotations", "x"}, fieldtype.String},
		{[]string{"spec", "port"}, fieldtype.Unknown},
		{[]string{"spec", "extra", "x"}, fieldtype.Unknown},
		{[]string{"spec", "nothing"}, fieldtype.Unknown},
	} {
		if got := types("example.com/v1", "Widget", tt.path); got != tt.want {
			t.Errorf("%s: %v, want %v", strings.Join(tt.path, "."), got, tt.want)
		}
	}
	if got := types("example.com/v2", "Widget", []string{"spec", "version"}); got != fieldtype.Unknown {
		t.Errorf("a version without a schema: %v", got)
	}
	if CustomFieldTypes(nil) != nil {
		t.Error("CustomFieldTypes(nil) is not nil")
	}
}

// TestInsertionImagePartKeepsTheText: on a built-in kind, an insertion's
// entry that sets an image part from a variable takes its text (1.10
// stays 1.10), with or without schemas of custom resources.
func TestInsertionImagePartKeepsTheText(t *testing.T) {
	vars, err := LoadVariables([]byte("values:\n  tag: 1.10\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := mustPatch(t, "ins.kpatch", "[deployment.web.containers[-]]\nname: side\nimage: busybox:1\nimage.tag: ${values.tag}\n").Bind(vars)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []ApplyOptions{{}, {Schemas: widgetSchemas(t)}} {
		out, err := p.Apply(mustObject(t, webDeployment), opts)
		if err != nil {
			t.Fatal(err)
		}
		containers := out["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
		if got := containers[len(containers)-1].(map[string]any)["image"]; got != "busybox:1.10" {
			t.Errorf("schemas %t: image %#v, want busybox:1.10", opts.Schemas != nil, got)
		}
	}
}

// crdEdgeSchema has an int-or-string field, an object named image, an
// open object with properties, and a root that keeps unknown fields.
const crdEdgeSchema = `type: object
x-kubernetes-preserve-unknown-fields: true
properties:
  spec:
    type: object
    properties:
      port: {x-kubernetes-int-or-string: true}
      sub:
        type: object
        properties:
          image: {type: object, properties: {repository: {type: string}, tag: {type: string}}}
      open:
        type: object
        x-kubernetes-preserve-unknown-fields: true
        properties:
          s: {type: string}
`

// TestCustomResourceSchemaEdges: an int-or-string field takes any
// 64-bit integer; an image field that the CRD makes an object has a tag
// field, typed; an object that keeps unknown fields types the ones it
// names and takes the others as written; metadata is typed under a root
// that keeps unknown fields; a merge patch's null removes a field the
// schema does not name.
func TestCustomResourceSchemaEdges(t *testing.T) {
	var props apiextensionsv1.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(crdEdgeSchema), &props); err != nil {
		t.Fatal(err)
	}
	s := NewCustomResourceSchema("Edge", &props)
	opts := ApplyOptions{Schemas: func(string, string) *CustomResourceSchema { return s }}
	vars, err := LoadVariables([]byte("values:\n  v: 1.10\n"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"e.kpatch": `[edge.e]
spec.port: 3000000000
spec.sub.image.tag: ${values.v}
spec.sub.image.repository: 1.0
spec.open.s: 1.10
spec.open.free: 1.10
labels.v: ${values.v}
`,
		"m.yaml": `- target: edge.e
  type: merge
  patch:
    spec: {legacy: null, sub: {gone: null}}
    status: null
`,
	}
	obj := mustObject(t, "apiVersion: example.com/v1\nkind: Edge\nmetadata: {name: e}\nspec: {legacy: old, sub: {gone: 1}}\nstatus: {phase: x}\n")
	for _, name := range []string{"e.kpatch", "m.yaml"} {
		p, err := mustPatch(t, name, files[name]).Bind(vars)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if obj, err = p.Apply(obj, opts); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	want := map[string]any{
		"apiVersion": "example.com/v1", "kind": "Edge",
		"metadata": map[string]any{"name": "e", "labels": map[string]any{"v": "1.10"}},
		"spec": map[string]any{
			"port": int64(3000000000),
			"sub":  map[string]any{"image": map[string]any{"tag": "1.10", "repository": "1.0"}},
			"open": map[string]any{"s": "1.10", "free": 1.1},
		},
	}
	if !jsonvalue.Equal(obj, want) {
		t.Errorf("got  %#v\nwant %#v", obj, want)
	}
	// a value that is no field's removal still fails on an unknown field
	p := mustPatch(t, "u.yaml", "- target: edge.e\n  type: merge\n  patch:\n    spec: {sub: {other: 1}}\n")
	if _, err := p.Apply(obj, opts); err == nil || !strings.Contains(err.Error(), `has no field "other"`) {
		t.Errorf("a value in a field the schema does not name: %v", err)
	}
}

// TestCustomResourceMetadataWithoutCRD: without its CRD, a custom
// resource's metadata is still an object's metadata: labels and
// annotations receive texts as written, as the API server holds them;
// its other fields take values as YAML read them.
func TestCustomResourceMetadataWithoutCRD(t *testing.T) {
	vars, err := LoadVariables([]byte("values:\n  v: 1.10\n"))
	if err != nil {
		t.Fatal(err)
	}
	obj := mustObject(t, "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\n")
	for name, src := range map[string]string{
		"g.kpatch": "[gizmo.g]\nlabels.v: ${values.v}\nannotations.c: 2.10\nspec.v: ${values.v}\n",
		"g.yaml":   "- target: gizmo.g\n  type: merge\n  patch:\n    metadata: {annotations: {m: 010}}\n",
	} {
		p, err := mustPatch(t, name, src).Bind(vars)
		if err != nil {
			t.Fatal(err)
		}
		if obj, err = p.Apply(obj, ApplyOptions{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	want := map[string]any{
		"apiVersion": "example.com/v1", "kind": "Gizmo",
		"metadata": map[string]any{"name": "g", "labels": map[string]any{"v": "1.10"}, "annotations": map[string]any{"c": "2.10", "m": "010"}},
		"spec":     map[string]any{"v": 1.1},
	}
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("got  %#v\nwant %#v", obj, want)
	}
}

// TestCustomResourceEveryItemOfNoList: a field written on a list that
// the CRD says is a list, and that the object does not have, is written
// on each of its items: none, so nothing changes (no map is made in the
// list's place), as on a built-in kind; on a list the object has, every
// item gets it.
func TestCustomResourceEveryItemOfNoList(t *testing.T) {
	src := `[widget.*]
spec.items.weight: 5
spec.items[*].tag: "2"
`
	for _, tt := range []struct{ obj, want string }{
		{"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {version: a}\n", "{version: a}"},
		{"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n", "<nil>"},
		{"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {items: [{name: a}, {name: b}]}\n", "{items: [{name: a, weight: 5, tag: \"2\"}, {name: b, weight: 5, tag: \"2\"}]}"},
	} {
		out, err := mustPatch(t, "w.kpatch", src).Apply(mustObject(t, tt.obj), ApplyOptions{Schemas: widgetSchemas(t)})
		if err != nil {
			t.Fatalf("%s: %v", tt.obj, err)
		}
		want := any(nil)
		if tt.want != "<nil>" {
			want = mustObject(t, tt.want)
		}
		if got := out["spec"]; !jsonvalue.Equal(got, want) {
			t.Errorf("%s\nspec %#v, want %#v", tt.obj, got, want)
		}
	}
	// an insertion's entries: a list of the item that the item lacks
	p := mustPatch(t, "i.kpatch", "[widget.w.spec.items[-]]\nname: c\nparts.size: 1\n")
	var props apiextensionsv1.JSONSchemaProps
	if err := yaml.Unmarshal([]byte("type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      items:\n        type: array\n        items: {type: object, properties: {name: {type: string}, parts: {type: array, items: {type: object, properties: {size: {type: integer}}}}}}\n"), &props); err != nil {
		t.Fatal(err)
	}
	s := NewCustomResourceSchema("Widget", &props)
	out, err := p.Apply(mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {items: []}\n"), ApplyOptions{Schemas: func(string, string) *CustomResourceSchema { return s }})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out["spec"], map[string]any{"items": []any{map[string]any{"name": "c"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("insertion: spec %#v, want %#v", got, want)
	}
}

// TestCustomResourceInsertionTwinByListMapKeys: an insertion into a list
// that the CRD makes a map finds its twin by the list's keys, typed
// first (the text "80" is the port 80), a key the item lacks taking its
// default, and updates it instead of adding an item with the same keys,
// which the API server would refuse.
func TestCustomResourceInsertionTwinByListMapKeys(t *testing.T) {
	var props apiextensionsv1.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(`type: object
properties:
  spec:
    type: object
    properties:
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [port, protocol]
        items: {type: object, properties: {port: {type: integer}, protocol: {type: string, default: TCP}, name: {type: string}}}
`), &props); err != nil {
		t.Fatal(err)
	}
	s := NewCustomResourceSchema("Widget", &props)
	opts := ApplyOptions{Schemas: func(string, string) *CustomResourceSchema { return s }}
	obj := mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {ports: [{port: 80, protocol: TCP, name: http}]}\n")
	for _, tt := range []struct{ name, src, want string }{
		{"i.kpatch", "[widget.w.spec.ports[-]]\nport: \"80\"\nprotocol: TCP\nname: web\n", "[{port: 80, protocol: TCP, name: web}]"},
		{"i.kpatch", "[widget.w.spec.ports[-]]\nport: 80\nprotocol: UDP\nname: dns\n", "[{port: 80, protocol: TCP, name: http}, {port: 80, protocol: UDP, name: dns}]"},
		{"i.yaml", "- target: widget.w\n  patch:\n    spec.ports[-]: {port: \"80\", protocol: TCP, name: web}\n", "[{port: 80, protocol: TCP, name: web}]"},
		// a key the new item lacks takes its default: (80, TCP) is the twin,
		// (8080, TCP) a new item, though its name is the twin's
		{"i.kpatch", "[widget.w.spec.ports[-]]\nport: 80\nname: web2\n", "[{port: 80, protocol: TCP, name: web2}]"},
		{"i.kpatch", "[widget.w.spec.ports[-]]\nport: 8080\nname: http\n", "[{port: 80, protocol: TCP, name: http}, {port: 8080, name: http}]"},
	} {
		out, err := mustPatch(t, tt.name, tt.src).Apply(obj, opts)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if got, want := out["spec"].(map[string]any)["ports"], mustValue(t, tt.want); !jsonvalue.Equal(got, want) {
			t.Errorf("%s\nports %v, want %v", tt.src, got, want)
		}
	}
}

func mustValue(t *testing.T, src string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCustomResourceRequiredThroughNoList: a field marked ${required} on
// every item of a list that the CRD names and the object lacks is
// required of no item, as on a built-in kind; on the items the object
// has, it is required.
func TestCustomResourceRequiredThroughNoList(t *testing.T) {
	p := mustPatch(t, "r.kpatch", "[widget.*]\nspec.items.tag: ${required}\n")
	opts := ApplyOptions{Schemas: widgetSchemas(t)}
	ref := ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Name: "w"}
	for obj, missing := range map[string]int{
		"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {version: a}\n":                 0,
		"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n":                                     0,
		"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {items: [{name: a, tag: b}]}\n": 0,
		"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {items: [{name: a}]}\n":         1,
	} {
		if got := p.MissingRequired(mustObject(t, obj), &ref, opts); len(got) != missing {
			t.Errorf("%s: %v, want %d missing", obj, got, missing)
		}
	}
	// without the CRD, spec.items may be a map: its tag is required
	if got := p.MissingRequired(mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"), &ref, ApplyOptions{}); len(got) != 1 {
		t.Errorf("without the CRD: %v, want the field missing", got)
	}
}
