package replacement

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/fieldtype"
)

func TestWellKnownFieldType(t *testing.T) {
	for _, c := range []struct {
		apiVersion, kind, path string
		want                   fieldtype.Type
	}{
		{"apps/v1", "Deployment", "metadata.labels.app", fieldtype.String},
		{"apps/v1", "Deployment", "metadata.annotations.version", fieldtype.String},
		{"apps/v1", "Deployment", "spec.template.metadata.labels.app", fieldtype.String},
		{"example.com/v1", "Widget", "metadata.annotations.x", fieldtype.String},
		{"apps/v1", "Deployment", "spec.selector.matchLabels.app", fieldtype.String},
		{"apps/v1", "Deployment", "spec.template.spec.nodeSelector.zone", fieldtype.String},
		{"v1", "Service", "spec.selector.app", fieldtype.String},
		{"v1", "ConfigMap", "data.port", fieldtype.String},
		{"v1", "ConfigMap", "binaryData.blob", fieldtype.String},
		{"v1", "Secret", "stringData.token", fieldtype.String},
		{"v1", "Secret", "data.token", fieldtype.String},
		{"apps/v1", "Deployment", "spec.template.spec.containers.0.env.2.value", fieldtype.String},
		{"v1", "Pod", "spec.initContainers.1.env.0.value", fieldtype.String},
		{"batch/v1", "CronJob", "spec.jobTemplate.spec.template.spec.containers.0.env.0.value", fieldtype.String},
		// not known: the value's own type decides
		{"apps/v1", "Deployment", "spec.replicas", fieldtype.Unknown},
		{"apps/v1", "Deployment", "spec.selector.app", fieldtype.Unknown},
		{"v1", "Secret", "binaryData.blob", fieldtype.Unknown},
		{"v1", "ConfigMap", "stringData.x", fieldtype.Unknown},
		{"example.com/v1", "ConfigMap", "data.port", fieldtype.Unknown},
		{"v1", "ConfigMap", "data", fieldtype.Unknown},
		{"example.com/v1", "Widget", "spec.labels.x", fieldtype.Unknown},
		{"apps/v1", "Deployment", "spec.template.spec.containers.0.env.2.name", fieldtype.Unknown},
		{"apps/v1", "Deployment", "spec.template.spec.volumes.0.env.2.value", fieldtype.Unknown},
	} {
		if got := fieldtype.WellKnown(c.apiVersion, c.kind, strings.Split(c.path, ".")); got != c.want {
			t.Errorf("%s %s %s: %s, want %s", c.apiVersion, c.kind, c.path, got, c.want)
		}
	}
}

const typedObject = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: main
        image: nginx:1.0
        env:
        - {name: A, value: one}
        - {name: B, value: two}
`

// TestImageTagIntoAnnotation is the admission case of a tag copied into a
// new annotation: the tag 1.0 stays the string "1.0", which the API
// server accepts (the number 1 it refuses).
func TestImageTagIntoAnnotation(t *testing.T) {
	r := mustParse(t, `
replacements:
- source:
    kind: Deployment
    fieldPath: spec.template.spec.containers.[name=main].image
    options: {delimiter: ':', index: 1}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.annotations.version]
    options: {create: true}
`)
	out, err := r.ApplyObject(obj(t, typedObject), nil, ObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := field(t, out, "metadata.annotations.version"); got != "1.0" {
		t.Errorf("version = %#v, want the string 1.0", got)
	}
}

// schemaTypes is a stand-in for a schema: spec.replicas an integer,
// spec.paused a boolean, spec.ratio a number, spec.name a string.
func schemaTypes(apiVersion, kind string, path []string) fieldtype.Type {
	if len(path) == 2 && path[0] == "spec" {
		switch path[1] {
		case "replicas":
			return fieldtype.Integer
		case "paused":
			return fieldtype.Boolean
		case "ratio":
			return fieldtype.Number
		case "name":
			return fieldtype.String
		}
	}
	return fieldtype.WellKnown(apiVersion, kind, path)
}

// TestSetFieldTypes types each written field by the caller's schema, over
// the field's existing type and the source's.
func TestSetFieldTypes(t *testing.T) {
	for _, c := range []struct {
		path, value string
		want        any
	}{
		{"spec.replicas", "3", int64(3)},
		{"spec.paused", "true", true},
		{"spec.ratio", "1.5", 1.5},
		{"spec.name", "3", "3"},         // an existing integer, typed a string by the schema
		{"spec.unknown", "3", "3"},      // a string source, type not known
		{"spec.replicas", "debug", nil}, // no integer: an error
	} {
		t.Run(c.path+"="+c.value, func(t *testing.T) {
			r := mustParse(t, `
replacements:
- source: {kind: ConfigMap, fieldPath: data.v}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [`+c.path+`]
    options: {create: true}
`)
			r.SetFieldTypes(schemaTypes)
			cm := obj(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: s}, data: {v: \""+c.value+"\"}}")
			dep := obj(t, "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {name: 5}}")
			out, err := r.Apply([]map[string]any{cm, dep})
			if c.want == nil {
				if !errors.Is(err, ErrValue) || !strings.HasPrefix(err.Error(), "r.yaml:6:18: Deployment web: ") {
					t.Fatalf("want a positioned ErrValue, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := field(t, out[1], c.path); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s = %#v, want %#v", c.path, got, c.want)
			}
		})
	}
}

// TestSetFieldTypesDefault: without SetFieldTypes, and after
// SetFieldTypes(nil), the well-known string fields are typed.
func TestSetFieldTypesDefault(t *testing.T) {
	src := `
replacements:
- source: {kind: Deployment, fieldPath: spec.replicas}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.labels.replicas, spec.copy]
    options: {create: true}
`
	r := mustParse(t, src)
	r.SetFieldTypes(func(string, string, []string) fieldtype.Type { return fieldtype.Unknown })
	r.SetFieldTypes(nil)
	out, err := r.ApplyObject(obj(t, typedObject), nil, ObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := field(t, out, "metadata.labels.replicas"); got != "1" {
		t.Errorf("label = %#v, want the string 1", got)
	}
	if got := field(t, out, "spec.copy"); got != int64(1) {
		t.Errorf("spec.copy = %#v, want the integer 1 (the source's type)", got)
	}
}

// TestFieldTypePath gives the type function the object's apiVersion and
// kind and each written field's path, list items by position.
func TestFieldTypePath(t *testing.T) {
	r := mustParse(t, `
replacements:
- sourceValue: v
  targets:
  - select: {kind: Deployment}
    fieldPaths:
    - spec.template.spec.containers.*.env.[name=B].value
    - spec.template.spec.containers.[name=main].env.[name=C].value
    options: {create: true}
`)
	var got []string
	r.SetFieldTypes(func(apiVersion, kind string, path []string) fieldtype.Type {
		got = append(got, apiVersion+" "+kind+" "+strings.Join(path, "."))
		return fieldtype.Unknown
	})
	if _, err := r.ApplyObject(obj(t, typedObject), nil, ObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"apps/v1 Deployment spec.template.spec.containers.0.env.1.value",
		"apps/v1 Deployment spec.template.spec.containers.0.env.2.value",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paths:\n%q\nwant\n%q", got, want)
	}
}
