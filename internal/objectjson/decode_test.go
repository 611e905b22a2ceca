package objectjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestDecodeObjectMatchesAPIServer holds Decode to the API server's
// decoder (k8s.io/apimachinery/pkg/util/json, integers as int64): the same
// values, of the same Go types.
func TestDecodeObjectMatchesAPIServer(t *testing.T) {
	bench, err := os.ReadFile("../../pkg/kpatch/testdata/bench/deployment.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{
		string(bench),
		`{"a":1,"b":-2,"c":1.5,"d":1e3,"e":9223372036854775807,"f":9223372036854775808,"g":-9223372036854775808,"h":1E-7,"i":0,"j":-0,"k":100000000000000000000000}`,
		`{"lone":"\ud800x","low":"\udc00","pair":"\ud800\ud800","nested":[[],[[]],{},[{"a":[1,2.5,{"b":null}]}]]}`,
		"{\"k\xfe\":\"\xed\xa0\x80\"}",
		`{"s":"\u00e9\n\t\"\\\/","u":"\ud83d\ude00","n":null,"t":true,"f":false,"l":[1,"x",null,[],{}],"o":{}}`,
		`{"dup":1,"dup":2}`,
		`{"Kind":"a","kind":"b"}`,
		`  {"ws" : [ 1 , 2 ] }  `,
		"{\"bad\":\"a\xffb\"}",
		manyValues(3, true), manyValues(16, true), manyValues(17, false), manyValues(64, true), manyValues(65, true), manyValues(200, true),
	} {
		want := map[string]any{}
		if err := utiljson.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		got, err := Decode([]byte(raw), nil)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %#v\nwant %#v", raw, got, want)
		}
	}
}

// manyValues is a document of n of each value Decode boxes: strings
// (escaped ones among them when escapes is set), integers that fit a
// byte and bigger ones, floats, lists (empty ones among them), so that
// they fill the boxes' chunks and more.
func manyValues(n int, escapes bool) string {
	e := "e"
	if escapes {
		e = `\u00e9`
	}
	var b strings.Builder
	b.WriteString(`{"empty":"","l":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"s":"v%d","e":"%s%d","i":%d,"big":%d,"neg":%d,"f":%d.5,"l":[%d,"x"],"z":[]}`, i, e, i, i%256, 1000+i, -i, i, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// decodeAllocs is what a Decode of raw allocates into maps lent again
// each time, as the webhook's requests do, once the maps are made.
func decodeAllocs(t *testing.T, raw []byte) float64 {
	t.Helper()
	maps := TakeMaps()
	decode := func() {
		if _, err := Decode(raw, maps); err != nil {
			t.Fatal(err)
		}
		maps.empty()
	}
	decode()
	return testing.AllocsPerRun(20, decode)
}

// TestDecodeBoxesValuesTogether holds Decode to boxing the strings,
// numbers and lists of a document a chunk at a time, not one allocation
// each: 200 of each cost a few dozen allocations, not 1,600.
func TestDecodeBoxesValuesTogether(t *testing.T) {
	raw := []byte(manyValues(200, false))
	// the document's copy, its lists' elements, and per type one
	// allocation per 64 values; the race detector's pool drops scratch
	// at random
	if n := decodeAllocs(t, raw); n > 100 {
		t.Errorf("%.0f allocations decoding 200 strings, numbers and lists of each kind, want at most 100", n)
	}
}

// TestBoxesAreConverted holds the interfaces boxes makes to those Go's
// conversion makes: the same type and value, and each its own value.
func TestBoxesAreConverted(t *testing.T) {
	for _, n := range []int{1, 4, 5, 16, 17, 64, 65, 130} {
		out := make([]any, n)
		var b boxes[string]
		for i := range n {
			b.add(fmt.Sprint("s", i), n-1-i, out)
		}
		b.flush(out)
		for i, v := range out {
			if want := any(fmt.Sprint("s", n-1-i)); v != want {
				t.Fatalf("n=%d: slot %d holds %#v, want %#v", n, i, v, want)
			}
		}
		var l boxes[[]any]
		lists := make([]any, n)
		for i := range n {
			l.add(make([]any, i), i, lists)
		}
		l.flush(lists)
		for i, v := range lists {
			if got, ok := v.([]any); !ok || len(got) != i || got == nil {
				t.Fatalf("n=%d: list %d is %#v", n, i, v)
			}
		}
	}
}

func TestDecodeObjectRefusesWhatIsNotAnObject(t *testing.T) {
	for _, raw := range []string{`null`, `[]`, `1`, `"x"`, `{`, `{"a":}`, `{"a":1}x`, ``, `{"a":01}`, `{"a":NaN}`, `{"a":1e400}`,
		`{"a":"` + "\x01" + `"}`, `{"a":"\q"}`, `{"a":[1,]}`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001)} {
		obj, err := Decode([]byte(raw), nil)
		if err == nil {
			t.Errorf("%q: decoded %v", raw, obj)
		}
		if raw == "null" && !errors.Is(err, ErrNotAnObject) {
			t.Errorf("null: %v, want ErrNotAnObject", err)
		}
	}
}

// FuzzDecodeObject holds Decode to the API server's decoder on
// arbitrary bytes: both refuse the document, or both decode it to the
// same values of the same Go types.
func FuzzDecodeObject(f *testing.F) {
	bench, err := os.ReadFile("../../pkg/kpatch/testdata/bench/deployment.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bench)
	if apiServer, err := os.ReadFile("testdata/deployment-apiserver.json"); err == nil {
		f.Add(apiServer)
	}
	for _, seed := range decodeSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want map[string]any
		werr := utiljson.Unmarshal(raw, &want)
		got, err := Decode(raw, nil)
		switch {
		case werr != nil || want == nil:
			if err == nil {
				t.Fatalf("%q: decoded %#v, the API server's decoder: %v", raw, got, werr)
			}
		case err != nil:
			t.Fatalf("%q: %v, the API server's decoder: %#v", raw, err, want)
		case !reflect.DeepEqual(got, want):
			t.Fatalf("%q:\ngot  %#v\nwant %#v", raw, got, want)
		}
	})
}

// decodeSeeds are documents at the edges of the decoder: numbers, escapes,
// invalid UTF-8, nesting, white space, what is not an object.
var decodeSeeds = []string{
	`{"a":1,"b":-2,"c":1.5,"d":1e3,"e":9223372036854775807,"f":9223372036854775808,"g":-9223372036854775809,"h":1E-7,"i":0,"j":-0,"k":1e400}`,
	`{"s":"\u00e9\n\t\"\\\/\b\f\r","u":"\ud83d\ude00","lone":"\ud800x","low":"\udc00","pair":"\ud800\ud800"}`,
	"{\"bad\":\"a\xffb\",\"k\xfe\":1,\"sur\":\"\xed\xa0\x80\"}",
	`{"l":[[],[[]],{},[{"a":[1,2,{"b":null}]}],true,false,null]}`,
	`{"dup":{"a":1},"dup":[1]}`,
	" \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \n",
	`{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":.5}`, `{"a":+1}`,
	`{"a":"x` + "\x01" + `"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":tru}`, `{"a":nul}`,
	`{"a":1,}`, `{,}`, `{"a" 1}`, `{1:2}`, `[1]`, `null`, `"x"`, `{}x`, ``, `{`, `{"a":[1,2}`,
}

// TestDecodeObjectDepth holds Decode to the API server's nesting
// limit: 10,000 levels are decoded, 10,001 refused.
func TestDecodeObjectDepth(t *testing.T) {
	for depth, ok := range map[int]bool{10000: true, 10001: false} {
		raw := []byte(`{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
		var want map[string]any
		werr := utiljson.Unmarshal(raw, &want)
		_, err := Decode(raw, nil)
		if (err == nil) != ok || (werr == nil) != ok {
			t.Errorf("depth %d: error %v, the API server's decoder: %v; want ok %v", depth, err, werr, ok)
		}
	}
}

// benchObject is the benchmark Deployment with its containers repeated
// times times (3 × times containers), renamed so that they stay distinct.
func benchObject(b *testing.B, times int) []byte {
	raw, err := os.ReadFile("../../pkg/kpatch/testdata/bench/deployment.json")
	if err != nil {
		b.Fatal(err)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		b.Fatal(err)
	}
	spec := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	var containers []any
	for i := range times {
		for _, c := range spec["containers"].([]any) {
			c := maps.Clone(c.(map[string]any))
			c["name"] = fmt.Sprintf("%s-%d", c["name"], i)
			containers = append(containers, c)
		}
	}
	spec["containers"] = containers
	out, err := json.Marshal(obj)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkDecodeObject decodes the benchmark Deployment (3 containers)
// and the same with 30 containers: linear in the document.
func BenchmarkDecodeObject(b *testing.B) {
	for _, times := range []int{1, 10} {
		raw := benchObject(b, times)
		b.Run(fmt.Sprintf("containers=%d", 3*times), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(raw, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeAPIServerObject decodes the benchmark Deployment as the
// API server sends it in a review (testdata/deployment-apiserver.json,
// what a server-side dry-run create returned: twice the size, half of it
// managedFields, whose keys escape their quotes) into the request's
// pooled maps, as the webhook does.
func BenchmarkDecodeAPIServerObject(b *testing.B) {
	raw, err := os.ReadFile("testdata/deployment-apiserver.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		maps := TakeMaps()
		if _, err := Decode(raw, maps); err != nil {
			b.Fatal(err)
		}
		maps.Release()
	}
}

// TestDecodeManagedFieldsKeys: the escaped keys of managedFields are
// decoded by unescape, one allocation each, as the API server reads them.
func TestDecodeManagedFieldsKeys(t *testing.T) {
	raw, err := os.ReadFile("testdata/deployment-apiserver.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := utiljson.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(raw, nil)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("not the API server's decoding (%v)", err)
	}
	fields := got["metadata"].(map[string]any)["managedFields"].([]any)[0].(map[string]any)["fieldsV1"].(map[string]any)
	containers := fields["f:spec"].(map[string]any)["f:template"].(map[string]any)["f:spec"].(map[string]any)["f:containers"].(map[string]any)
	if _, ok := containers[`k:{"name":"app"}`]; !ok {
		t.Errorf("no key k:{\"name\":\"app\"} in %v", containers)
	}
	// 18 escaped keys and 6 allocations of the document without them
	// (TestDecodeBoxesValuesTogether), with room for the race detector's
	// pool dropping scratch at random; 96 when encoding/json unquoted them
	if n := decodeAllocs(t, raw); n > 40 {
		t.Errorf("%v allocations, want at most 40", n)
	}
}

// TestDecodeObjectSaysWhere holds a refused document's error to the
// byte offset of what is wrong.
func TestDecodeObjectSaysWhere(t *testing.T) {
	for raw, offset := range map[string]int{`{"a":tru}`: 5, `{"a":1,}`: 7, `{"a":"x` + "\x01" + `"}`: 7, `{"a":1e400}`: 5, `{"a" 1}`: 5} {
		_, err := Decode([]byte(raw), nil)
		var de *DecodeError
		if !errors.As(err, &de) || de.Offset != offset {
			t.Errorf("%q: %v, want a *DecodeError at offset %d", raw, err, offset)
		}
	}
}
