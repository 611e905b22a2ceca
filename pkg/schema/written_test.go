package schema

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/fieldtype"
	"kpatch.dev/kpatch/pkg/kpatch"
)

var _ apply.SchemaSource = (*Checker)(nil)

// TestCheckerGivesTheSchemasThatTypeWrites: a checker with CRDs gives
// the engine the schema of each served version, built once and shared;
// one without CRDs, or a kind no CRD defines, gives none.
func TestCheckerGivesTheSchemasThatTypeWrites(t *testing.T) {
	if (&Checker{}).Schemas() != nil {
		t.Error("a checker of the built-in kinds gives schemas")
	}
	crds := NewCRDs([]*apiextensionsv1.CustomResourceDefinition{widgetCRD(t, "widgets.example.com", "example.com")})
	schemas := (&Checker{CRDs: func() *CRDs { return crds }}).Schemas()
	if schemas == nil {
		t.Fatal("a checker with CRDs gives no schemas")
	}
	w := schemas("example.com/v1", "Widget")
	if w == nil || schemas("example.com/v1", "Widget") != w {
		t.Fatalf("the Widget's schema %p is not built once", w)
	}
	for path, want := range map[string]fieldtype.Type{
		"spec.mode": fieldtype.String, "spec.size": fieldtype.Integer,
		"spec.labels.x": fieldtype.String, "spec.port": fieldtype.Unknown,
	} {
		if got := w.FieldType(strings.Split(path, ".")); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
	for _, other := range [][2]string{{"example.com/v2", "Widget"}, {"example.com/v1", "Gadget"}, {"apps/v1", "Deployment"}} {
		if schemas(other[0], other[1]) != nil {
			t.Errorf("%v has a schema", other)
		}
	}
	// the engine writes by it
	p, err := kpatch.ParseAndCompile("w.kpatch", []byte("[widget.w]\nspec.labels.v: 1.10\nspec.size: \"3\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply(obj(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {mode: fast}\n"), kpatch.ApplyOptions{Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	spec := out["spec"].(map[string]any)
	if spec["labels"].(map[string]any)["v"] != "1.10" || spec["size"] != int64(3) {
		t.Errorf("spec %#v, want labels.v \"1.10\" and size 3", spec)
	}
}

// TestCheckMetadataWithoutCRD: a custom resource whose CRD is not known
// is held to an object's metadata (a label is a string) and nothing
// else; under a root that keeps unknown fields, the fields the schema
// names are checked and the others are free.
func TestCheckMetadataWithoutCRD(t *testing.T) {
	before := obj(t, "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\nspec: {a: 1}\n")
	c := &Checker{}
	if err := c.Check(before, set(before, int64(1), "metadata", "labels")); err == nil || !strings.Contains(err.Error(), "metadata.labels: the field is a map") {
		t.Errorf("a number in labels: %v", err)
	}
	if err := c.Check(before, set(before, map[string]any{"b": []any{true}}, "spec")); err != nil {
		t.Errorf("any spec: %v", err)
	}
	var props apiextensionsv1.JSONSchemaProps
	if err := yaml.Unmarshal([]byte("type: object\nx-kubernetes-preserve-unknown-fields: true\nproperties:\n  spec: {type: object, properties: {s: {type: string}}}\n"), &props); err != nil {
		t.Fatal(err)
	}
	def := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Gizmo"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &props}}},
	}}
	crds := NewCRDs([]*apiextensionsv1.CustomResourceDefinition{def})
	c = &Checker{CRDs: func() *CRDs { return crds }}
	if err := c.Check(before, set(before, int64(1), "spec", "s")); err == nil || !strings.Contains(err.Error(), "spec.s: the field is a string") {
		t.Errorf("a number in a named string field: %v", err)
	}
	if err := c.Check(before, set(before, int64(1), "status")); err != nil {
		t.Errorf("a field the root keeps: %v", err)
	}
	if err := c.Check(before, set(before, int64(1), "metadata", "labels", "x")); err == nil {
		t.Error("a number label passes")
	}
}

// TestCheckListMapKeys: a list that the CRD makes a map may not hold two
// items with the same keys, nor a set two equal items: the API server
// refuses either.
func TestCheckListMapKeys(t *testing.T) {
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
      tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      numbers: {type: array, x-kubernetes-list-type: set, items: {type: number}}
`), &props); err != nil {
		t.Fatal(err)
	}
	def := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &props}}},
	}}
	crds := NewCRDs([]*apiextensionsv1.CustomResourceDefinition{def})
	c := &Checker{CRDs: func() *CRDs { return crds }}
	before := obj(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {ports: [{port: 80, protocol: TCP}], tags: [a]}\n")
	for _, tt := range []struct {
		value any
		path  []any
		want  string
	}{
		{[]any{map[string]any{"port": int64(80), "protocol": "TCP"}, map[string]any{"port": int64(80), "protocol": "UDP"}}, []any{"spec", "ports"}, ""},
		{[]any{map[string]any{"port": int64(80), "protocol": "TCP"}, map[string]any{"port": int64(80), "protocol": "TCP", "name": "x"}}, []any{"spec", "ports"}, `spec.ports: items [0] and [1] have the same keys (port: 80, protocol: "TCP"); the CRD makes the list a map keyed by them`},
		{[]any{"a", "b"}, []any{"spec", "tags"}, ""},
		{[]any{"a", "b", "a"}, []any{"spec", "tags"}, `spec.tags: items [0] and [2] are the same ("a"); the CRD makes the list a set`},
		// a key an item lacks takes its default
		{[]any{map[string]any{"port": int64(80), "protocol": "TCP"}, map[string]any{"port": int64(80)}}, []any{"spec", "ports"}, `spec.ports: items [0] and [1] have the same keys (port: 80, protocol: "TCP")`},
		{[]any{map[string]any{"port": int64(80), "protocol": "UDP"}, map[string]any{"port": int64(80)}}, []any{"spec", "ports"}, ""},
		// 1.0 is written 1, which the API server reads as 1
		{[]any{int64(1), 1.0}, []any{"spec", "numbers"}, `spec.numbers: items [0] and [1] are the same (1)`},
		// a null key takes its default
		{[]any{map[string]any{"port": int64(80), "protocol": "TCP"}, map[string]any{"port": int64(80), "protocol": nil}}, []any{"spec", "ports"}, `have the same keys (port: 80, protocol: "TCP")`},
	} {
		err := c.Check(before, set(before, tt.value, tt.path...))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v: refused: %v", tt.value, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%v: %v, want %q", tt.value, err, tt.want)
		}
	}
	// a list the object came with duplicated: a file that changes it is
	// not refused for what it did not do
	dup := obj(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {ports: [{port: 80, protocol: TCP, name: a}, {port: 80, protocol: TCP, name: b}], tags: [a, a]}\n")
	renamed := set(dup, "c", "spec", "ports", 1, "name")
	if err := c.Check(dup, set(renamed, []any{"a", "a", "b"}, "spec", "tags")); err != nil {
		t.Errorf("duplicates the object came with: %v", err)
	}
}

// TestCheckLabelsAndAnnotations: labels and annotations of any object's
// metadata (a pod template's too, a custom resource's with or without
// its CRD) are held to what the API server validates: label keys and
// values, annotation keys, and the annotations' total size.
func TestCheckLabelsAndAnnotations(t *testing.T) {
	c := &Checker{}
	deploy := obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {app: web}}\nspec: {template: {metadata: {labels: {app: web}}}}\n")
	gizmo := obj(t, "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\n")
	for _, tt := range []struct {
		before map[string]any
		value  any
		path   []any
		want   string
	}{
		{deploy, "v1.10", []any{"metadata", "labels", "version"}, ""},
		{deploy, "", []any{"metadata", "labels", "empty"}, ""},
		{deploy, "a b", []any{"metadata", "labels", "app"}, `metadata.labels.app: "a b" is not a valid label value`},
		{deploy, "~", []any{"spec", "template", "metadata", "labels", "x"}, `spec.template.metadata.labels.x: "~" is not a valid label value`},
		{deploy, strings.Repeat("a", 64), []any{"metadata", "labels", "long"}, "must be no more than 63 bytes"},
		{deploy, "x", []any{"metadata", "labels", "a b"}, `metadata.labels.a b: "a b" is not a valid label key`},
		{deploy, "any text, spaces too", []any{"metadata", "annotations", "example.com/note"}, ""},
		{deploy, "x", []any{"metadata", "annotations", "-bad"}, `"-bad" is not a valid annotation key`},
		{deploy, strings.Repeat("a", 256*1024), []any{"metadata", "annotations", "big"}, "the annotations take 262147 bytes, more than the 262144 the API server keeps"},
		{gizmo, "a b", []any{"metadata", "labels", "x"}, `metadata.labels.x: "a b" is not a valid label value`},
	} {
		err := c.Check(tt.before, set(tt.before, tt.value, tt.path...))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v: refused: %v", tt.path, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%v: %v, want %q", tt.path, err, tt.want)
		}
	}
	// a label the object came with is not the files' doing
	bad := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: {x: a b}}\n")
	if err := c.Check(bad, set(bad, "ok", "metadata", "labels", "y")); err != nil {
		t.Errorf("a bad label the object came with: %v", err)
	}
}
