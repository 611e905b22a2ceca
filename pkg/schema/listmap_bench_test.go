package schema

import (
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// BenchmarkCheckListMapKeys checks a custom resource whose list of n
// ports the CRD keys by port and protocol (defaulted), after a file
// renamed one port: the duplicate check reads every item of the list
// the files changed, at N and 10N.
func BenchmarkCheckListMapKeys(b *testing.B) {
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
	def := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &props}}},
	}}
	crds := NewCRDs([]*apiextensionsv1.CustomResourceDefinition{def})
	c := &Checker{CRDs: func() *CRDs { return crds }}
	for _, n := range []int{100, 1000} {
		ports := make([]any, n)
		for i := range ports {
			ports[i] = map[string]any{"port": int64(i), "name": fmt.Sprintf("p%d", i)}
		}
		before := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"ports": ports}}
		after := set(before, "renamed", "spec", "ports", n/2, "name")
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.Check(before, after); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
