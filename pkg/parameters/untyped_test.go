package parameters

import (
	"reflect"
	"testing"

	"kpatch.dev/kpatch/pkg/variables"
)

// TestUntypedIsTodaysBehaviour resolves without a schema and compares
// with kpatch's own reading of the same values file and flags.
func TestUntypedIsTodaysBehaviour(t *testing.T) {
	// Keys are text here; variables.Load reads the keys y, n, yes,
	// no, on and off as booleans (YAML 1.1), so the file avoids them.
	const file = "values:\n  a: 1\n  db: {host: h, port: 5432}\n  list: [1, two]\n  nothing: ~\nfeatures:\n  x: yes\n  group: {g: false}\n"
	sets := []string{"values.db.user=u", "values.b=1.10", "features.z=true", "values.a=text"}
	setStrings := []string{"values.c=1.10"}

	want, err := variables.Load([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		if err := want.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range setStrings {
		if err := want.SetString(s); err != nil {
			t.Fatal(err)
		}
	}
	var none *Schema
	got, err := none.Resolve(valuesLayer(t, file), flags(t, sets, setStrings), ns("a", "ignored"), obj("a", "ignored"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
	if none.Usage([]string{"values.a"}).Undeclared != nil || none.Parameters() != nil {
		t.Error("no schema declares nothing and reports nothing")
	}
}

func TestUntypedErrors(t *testing.T) {
	var none *Schema
	_, err := none.Resolve(valuesLayer(t, "features:\n  x: 1\n  g: {y: no, z: text}\n"), flags(t, nil, []string{"features.w=true"}))
	checkErrors(t, err, []string{
		`values.yaml:2:3: parameter "x": features are booleans (true or false), got the number 1`,
		`values.yaml:3:3: parameter "g": features are booleans (true or false), got the string "text"`,
		`--set-string features.w: parameter "w": features are booleans (true or false), got the string "true"`,
	}, ErrType)
}
