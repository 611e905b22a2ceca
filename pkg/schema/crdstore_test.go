package schema

import (
	"strconv"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func widgetCRD(t *testing.T, name, group string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(crd), &def); err != nil {
		t.Fatal(err)
	}
	def.Name, def.Spec.Group = name, group
	def.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": crd}
	return &def
}

func TestCRDStore(t *testing.T) {
	one := widgetCRD(t, "widgets.example.com", "example.com")
	s := NewCRDStore(0)
	stripped, fits := s.Strip(one)
	if !fits {
		t.Fatal("refused without a bound")
	}
	def := stripped.(*apiextensionsv1.CustomResourceDefinition)
	if len(def.Annotations) != 0 || def.Spec.Versions[0].Schema == nil {
		t.Fatalf("stripped %+v", def)
	}
	size := s.Bytes()
	if size <= 0 {
		t.Fatalf("Bytes %d", size)
	}
	s.Set(def)
	c := &Checker{CRDs: s.CRDs}
	before := obj(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {mode: fast}\n")
	if err := c.Check(before, set(before, "fastt", "spec", "mode")); err == nil {
		t.Fatal("a value outside the enum passes")
	}
	// the bound holds one CRD: a second is kept without its schemas, so
	// not checked, until the first is deleted
	s = NewCRDStore(size)
	c = &Checker{CRDs: s.CRDs}
	first, _ := s.Strip(one)
	s.Set(first.(*apiextensionsv1.CustomResourceDefinition))
	two := widgetCRD(t, "widgets.other.example", "other.example")
	second, fits := s.Strip(two)
	if fits || second.(*apiextensionsv1.CustomResourceDefinition).Spec.Versions[0].Schema != nil {
		t.Fatal("a CRD past the bound keeps its schemas")
	}
	s.Set(second.(*apiextensionsv1.CustomResourceDefinition))
	other := obj(t, "apiVersion: other.example/v1\nkind: Widget\nmetadata: {name: w}\nspec: {mode: fast}\n")
	if err := c.Check(other, set(other, "fastt", "spec", "mode")); err != nil {
		t.Fatalf("a CRD past the bound is checked: %v", err)
	}
	if s.Bytes() != size {
		t.Fatalf("Bytes %d, want %d", s.Bytes(), size)
	}
	s.Delete(one.Name)
	if s.Bytes() != 0 {
		t.Fatalf("Bytes %d after Delete", s.Bytes())
	}
	second, fits = s.Strip(two)
	if !fits {
		t.Fatal("refused after the first was deleted")
	}
	s.Set(second.(*apiextensionsv1.CustomResourceDefinition))
	if err := c.Check(other, set(other, "fastt", "spec", "mode")); err == nil {
		t.Fatal("a value outside the enum passes")
	}
	if err := c.Check(before, set(before, "fastt", "spec", "mode")); err != nil {
		t.Fatalf("a deleted CRD is checked: %v", err)
	}
}

// BenchmarkCRDStoreList is an informer's first list of n CRDs:
// each is stripped and set, then the first request reads the schemas.
func BenchmarkCRDStoreList(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var def apiextensionsv1.CustomResourceDefinition
			if err := yaml.Unmarshal([]byte(crd), &def); err != nil {
				b.Fatal(err)
			}
			crds := make([]*apiextensionsv1.CustomResourceDefinition, n)
			for i := range crds {
				c := def.DeepCopy()
				c.Name, c.Spec.Group = "widgets.g"+strconv.Itoa(i)+".example.com", "g"+strconv.Itoa(i)+".example.com"
				crds[i] = c
			}
			b.ReportAllocs()
			for b.Loop() {
				s := NewCRDStore(0)
				for _, c := range crds {
					out, _ := s.Strip(c)
					s.Set(out.(*apiextensionsv1.CustomResourceDefinition))
				}
				if s.CRDs().Len() != n {
					b.Fatal("not every CRD kept")
				}
			}
		})
	}
}
