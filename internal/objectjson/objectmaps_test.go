package objectjson

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestObjectMapsComeBackEmpty decodes objects one after the other into
// the same lent maps: each is what a fresh decoding makes, nothing of the
// one before left in it, and the maps are the same ones.
func TestObjectMapsComeBackEmpty(t *testing.T) {
	bench, err := os.ReadFile("../../pkg/kpatch/testdata/bench/deployment.json")
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{
		string(bench),
		`{"a":{"b":1,"c":{"d":[{"e":"f"}]}},"g":{}}`,
		`{"x":{"y":2}}`,
		`{"big":{` + members(40) + `},"small":{"a":null}}`,
		string(bench),
	}
	maps := new(Maps) // not from the pool, which may drop what it is given
	var first map[string]any
	for i, doc := range docs {
		got, err := Decode([]byte(doc), maps)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		want, err := Decode([]byte(doc), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d: decoded into lent maps\n%v\nwant %v", i, got, want)
		}
		if i == 0 {
			first = got
		}
		if i == len(docs)-1 && mapAddress(got) != mapAddress(first) {
			t.Error("the root map was not lent again")
		}
		maps.empty()
		if len(first) != 0 {
			t.Fatalf("%d: an emptied map keeps %d members", i, len(first))
		}
	}
}

func members(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":{"v":%d}`, i, i)
	}
	return b.String()
}

func mapAddress(m map[string]any) string { return fmt.Sprintf("%p", m) }
