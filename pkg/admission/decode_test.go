package admission

import (
	"errors"
	"os"
	"reflect"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestDecodeObjectMatchesAPIServer holds decodeObject to the API server's
// decoder (k8s.io/apimachinery/pkg/util/json, integers as int64): the same
// values, of the same Go types.
func TestDecodeObjectMatchesAPIServer(t *testing.T) {
	bench, err := os.ReadFile("../kpatch/testdata/bench/deployment.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{
		string(bench),
		`{"a":1,"b":-2,"c":1.5,"d":1e3,"e":9223372036854775807,"f":9223372036854775808,"g":-9223372036854775808,"h":1E-7,"i":0,"j":-0,"k":100000000000000000000000}`,
		`{"s":"\u00e9\n\t\"\\\/","u":"\ud83d\ude00","n":null,"t":true,"f":false,"l":[1,"x",null,[],{}],"o":{}}`,
		`{"dup":1,"dup":2}`,
		`{"Kind":"a","kind":"b"}`,
		`  {"ws" : [ 1 , 2 ] }  `,
		"{\"bad\":\"a\xffb\"}",
	} {
		want := map[string]any{}
		if err := utiljson.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		got, err := decodeObject([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %#v\nwant %#v", raw, got, want)
		}
	}
}

func TestDecodeObjectRefusesWhatIsNotAnObject(t *testing.T) {
	for _, raw := range []string{`null`, `[]`, `1`, `"x"`, `{`, `{"a":}`, `{"a":1}x`, ``, `{"a":01}`, `{"a":NaN}`} {
		obj, err := decodeObject([]byte(raw))
		if err == nil {
			t.Errorf("%q: decoded %v", raw, obj)
		}
		if raw == "null" && !errors.Is(err, errNotAnObject) {
			t.Errorf("null: %v, want errNotAnObject", err)
		}
	}
}
