package parameters_test

import (
	"fmt"

	"kpatch.dev/kpatch/pkg/parameters"
)

// The params-scalar example: a typed schema, a values file, and the
// variables that ${values.image} and ${values.replicas} read.
func ExampleSchema_Resolve() {
	schema, err := parameters.Parse("parameters.yaml", []byte(`parameters:
- {name: image, type: string, required: true, description: "container image"}
- {name: replicas, type: integer, default: 1, minimum: 1, maximum: 10}
`))
	if err != nil {
		panic(err)
	}
	values, err := parameters.ParseValues("values.yaml", []byte("values:\n  image: myregistry/app:v1.2.3\n  replicas: 3\n"))
	if err != nil {
		panic(err)
	}
	vars, err := schema.Resolve(values)
	fmt.Printf("%#v %#v %v\n", vars.Values["image"], vars.Values["replicas"], err)

	set, _ := parameters.ParseFlags(nil, []string{"values.replicas=abc"})
	_, err = schema.Resolve(values, set)
	fmt.Println(err)
	// Output:
	// "myregistry/app:v1.2.3" 3 <nil>
	// --set-string values.replicas: parameter "replicas": expected an integer, got the text "abc"
}

// Per-namespace values: a ConfigMap's values.yaml is assigned once; each
// Namespace's annotations win over it.
func ExampleValues_Resolve() {
	schema, _ := parameters.Parse("parameters.yaml", []byte(`parameters:
- {name: tier, type: string, enum: [gold, silver, bronze], default: bronze}
- {name: replicas, type: integer, default: "${values.base}"}
- {name: base, type: integer, default: 2}
`))
	values, _ := parameters.ParseValues("values.yaml", []byte("values: {tier: silver}"))
	registry, _ := schema.Assign(values)
	for _, ns := range []struct {
		name        string
		annotations map[string]string
	}{
		{"team-a", map[string]string{"values.kpatch.dev/tier": "gold", "values.kpatch.dev/base": "5"}},
		{"team-b", nil},
		{"team-c", map[string]string{"values.kpatch.dev/tier": "platinum"}},
	} {
		vars, err := registry.Resolve(parameters.NamespaceAnnotations(ns.name, ns.annotations))
		fmt.Println(ns.name, vars.Values["tier"], vars.Values["replicas"], err)
	}
	// Output:
	// team-a gold 5 <nil>
	// team-b silver 2 <nil>
	// team-c <nil> 2 namespace team-c annotation values.kpatch.dev/tier: parameter "tier": "platinum" is not one of "gold", "silver", "bronze"
}
