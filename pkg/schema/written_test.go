package schema

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
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
	for path, want := range map[string]replacement.FieldType{
		"spec.mode": replacement.TypeString, "spec.size": replacement.TypeInteger,
		"spec.labels.x": replacement.TypeString, "spec.port": replacement.TypeUnknown,
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
