package kpatch

import (
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// BenchmarkCustomResourceTyping applies a file of n entries, half
// constants and half variables, to a custom resource whose schema has n
// string fields: the cost of typing by the CRD at apply time, at N and
// 10N, beside the same file without the schema.
func BenchmarkCustomResourceTyping(b *testing.B) {
	for _, n := range []int{100, 1000} {
		props := map[string]apiextensionsv1.JSONSchemaProps{}
		var values, entries strings.Builder
		values.WriteString("values:\n")
		entries.WriteString("[widget.w]\n")
		for i := range n {
			props[fmt.Sprintf("f%d", i)] = apiextensionsv1.JSONSchemaProps{Type: "string"}
			if i%2 == 0 {
				fmt.Fprintf(&entries, "spec.f%d: 1.%d0\n", i, i)
			} else {
				fmt.Fprintf(&values, "  v%d: 1.%d0\n", i, i)
				fmt.Fprintf(&entries, "spec.f%d: ${values.v%d}\n", i, i)
			}
		}
		s := NewCustomResourceSchema("Widget", &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: props},
		}})
		vars, err := LoadVariables([]byte(values.String()))
		if err != nil {
			b.Fatal(err)
		}
		p, err := mustPatch(b, "w.kpatch", entries.String()).Bind(vars)
		if err != nil {
			b.Fatal(err)
		}
		obj := mustObject(b, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {}\n")
		for _, typed := range []bool{false, true} {
			opts := ApplyOptions{}
			if typed {
				opts.Schemas = func(string, string) *CustomResourceSchema { return s }
			}
			b.Run(fmt.Sprintf("entries=%d/schema=%t", n, typed), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					out, err := p.Apply(obj, opts)
					if err != nil {
						b.Fatal(err)
					}
					if got, want := out["spec"].(map[string]any)["f0"], any("1.00"); typed && got != want {
						b.Fatalf("f0 = %#v", got)
					}
				}
			})
		}
	}
}

// BenchmarkCustomResourceListMapInsertion inserts a port into a custom
// resource's list of n ports that the CRD keys by port and protocol
// (defaulted): the twin is looked for by the keys over every item, at N
// and 10N.
func BenchmarkCustomResourceListMapInsertion(b *testing.B) {
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
		b.Fatal(err)
	}
	s := NewCustomResourceSchema("Widget", &props)
	opts := ApplyOptions{Schemas: func(string, string) *CustomResourceSchema { return s }}
	p := mustPatch(b, "i.kpatch", "[widget.w.spec.ports[-]]\nport: \"100000\"\nname: new\n")
	for _, n := range []int{100, 1000} {
		ports := make([]any, n)
		for i := range ports {
			ports[i] = map[string]any{"port": int64(i), "name": fmt.Sprintf("p%d", i)}
		}
		obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"ports": ports}}
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := p.Apply(obj, opts)
				if err != nil {
					b.Fatal(err)
				}
				if got := len(out["spec"].(map[string]any)["ports"].([]any)); got != n+1 {
					b.Fatalf("%d ports", got)
				}
			}
		})
	}
}
