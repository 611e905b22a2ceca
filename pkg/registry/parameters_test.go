package registry

import "testing"

func TestValuesContext(t *testing.T) {
	for _, data := range []map[string]string{
		{ValuesKey: "values: {a: 1}\n"},
		{ValuesKey: contextMarker + "3\nabc"},
		{ParametersKey: "", ValuesKey: "x"},
		{ParametersKey: "parameters: []\n", ValuesKey: contextMarker + "-\n"},
		{},
	} {
		cm := configMap("c", data)
		schema, has, values := splitContext(valuesContext(&cm))
		_, wantHas := data[ParametersKey]
		if schema != data[ParametersKey] || has != wantHas || values != data[ValuesKey] {
			t.Errorf("%q: read back %q %v %q", data, schema, has, values)
		}
	}
	cm := configMap("c", map[string]string{ValuesKey: "values: {a: 1}\n"})
	if valuesContext(&cm) != "values: {a: 1}\n" {
		t.Error("without a schema, the context is values.yaml as stored before schemas")
	}
}
