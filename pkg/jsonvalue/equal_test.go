package jsonvalue

import (
	"encoding/json"
	"math"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestEqual: maps and lists by their contents, shared ones without a look
// inside, numbers by value across Go types, every other scalar as itself.
func TestEqual(t *testing.T) {
	shared := map[string]any{"a": []any{int64(1), "x"}}
	list := []any{int64(1), map[string]any{"b": true}}
	for _, c := range []struct {
		name string
		a, b any
		want bool
	}{
		{"one map", shared, shared, true},
		{"shared inside", map[string]any{"s": shared}, map[string]any{"s": shared}, true},
		{"one list", list, list, true},
		{"equal copies", map[string]any{"a": []any{int64(1), "x"}}, shared, true},
		{"int64 and float64", map[string]any{"n": int64(3)}, map[string]any{"n": float64(3)}, true},
		{"other number", map[string]any{"n": int64(3)}, map[string]any{"n": int64(4)}, false},
		{"other key", map[string]any{"n": int64(3)}, map[string]any{"m": int64(3)}, false},
		{"extra key", map[string]any{"n": nil}, map[string]any{}, false},
		{"nulls", []any{"a", nil}, []any{"a", nil}, true},
		{"longer list", []any{"a"}, []any{"a", "b"}, false},
		{"order", []any{"a", "b"}, []any{"b", "a"}, false},
		{"empty map and list", []any{map[string]any{}}, []any{[]any{}}, false},
		{"text and map", "x", map[string]any{}, false},
		{"text and number", "1", int64(1), false},
		{"true and 1", true, int64(1), false},
		{"null and 0", nil, int64(0), false},
		{"null and empty text", nil, "", false},
		{"1 and 1.0", int64(1), 1.0, true},
		{"int and int64", 7, int64(7), true},
		{"int32 and float32", int32(2), float32(2), true},
		{"uint64 and int64", uint64(5), int64(5), true},
		{"json.Number with exponent", json.Number("1e3"), int64(1000), true},
		{"json.Number with fraction", json.Number("2.50"), 2.5, true},
		{"json.Numbers", json.Number("10"), json.Number("1e1"), true},
		// beyond 64 bits, the API server reads the nearest float64
		{"huge json.Numbers", json.Number("123456789012345678901234567890"), json.Number("123456789012345678901234567891"), true},
		{"huge json.Number and float64", json.Number("123456789012345678901234567890"), 1.2345678901234568e29, true},
		{"json.Number beyond float64", json.Number("1e400"), json.Number("1e400"), true},
		{"json.Numbers beyond float64", json.Number("1e400"), json.Number("2e400"), false},
		{"beyond 2^53, exactly", int64(1<<53 + 1), float64(1 << 53), false},
		{"2^53", int64(1 << 53), float64(1 << 53), true},
		{"float beyond int64", float64(1 << 63), int64(math.MaxInt64), false},
		{"0.1", 0.1, json.Number("0.1"), true},
		{"float32 as its text", float32(0.1), 0.1, true},
		{"uint64 beyond int64", uint64(math.MaxUint64), float64(1 << 64), true},
		{"NaN", math.NaN(), math.NaN(), false},
		{"json.Numbers that are no numbers, by text", json.Number("x"), json.Number("x"), true},
		{"json.Number that is no number", json.Number("x"), json.Number("y"), false},
		{"other Go types deeply", []string{"a"}, []string{"a"}, true},
		{"other Go type and list", []string{"a"}, []any{"a"}, false},
	} {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("%s: Equal(%#v, %#v) = %v", c.name, c.a, c.b, got)
		}
		if got := Equal(c.b, c.a); got != c.want {
			t.Errorf("%s: Equal(%#v, %#v) = %v (swapped)", c.name, c.b, c.a, got)
		}
	}
}

// TestEqualAsTheAPIServerReads: a value is equal to what the API server
// reads back from its JSON text (numbers as int64 or float64, whatever Go
// type or spelling they had), and two values whose JSON texts the API
// server reads as different numbers are not equal.
func TestEqualAsTheAPIServerReads(t *testing.T) {
	read := func(v any) any {
		t.Helper()
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var out any
		if err := utiljson.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, v := range []any{
		map[string]any{"replicas": float64(3), "ratio": 0.5, "big": json.Number("1e3"), "n": json.Number("12")},
		[]any{int32(-4), float32(1.5), uint64(1 << 40), 7, json.Number("-0.25")},
		map[string]any{"a": []any{map[string]any{"b": 1e21, "c": 1e-7, "d": int64(math.MaxInt64)}}},
	} {
		if back := read(v); !Equal(v, back) || !Equal(back, v) {
			t.Errorf("Equal(%#v, %#v) = false: the API server reads one from the other", v, back)
		}
	}
	for _, p := range [][2]any{
		{int64(1<<53 + 1), float64(1 << 53)},
		{json.Number("0.30000000000000004"), json.Number("0.3")},
		{json.Number("9223372036854775807"), float64(math.MaxInt64)},
		{int64(1), "1"},
	} {
		if Equal(read(p[0]), read(p[1])) {
			t.Fatalf("the API server reads %v and %v alike", p[0], p[1])
		}
		if Equal(p[0], p[1]) {
			t.Errorf("Equal(%#v, %#v) = true; the API server reads them as different values", p[0], p[1])
		}
	}
}

// BenchmarkEqual compares an object with a copy of it (every map and list
// looked into), and with itself (none is).
func BenchmarkEqual(b *testing.B) {
	obj := deployment()
	cp := DeepCopy(obj)
	b.Run("copy", func(b *testing.B) {
		for b.Loop() {
			if !Equal(obj, cp) {
				b.Fatal("not equal")
			}
		}
	})
	b.Run("shared", func(b *testing.B) {
		for b.Loop() {
			if !Equal(obj, obj) {
				b.Fatal("not equal")
			}
		}
	})
}

func deployment() map[string]any {
	var obj map[string]any
	src := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","labels":{"app":"web","tier":"front"},"annotations":{"a":"b"}},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":0.25,"memory":"128Mi"}},
"env":[{"name":"A","value":"1"},{"name":"B","value":"2"},{"name":"C","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}]},
{"name":"sidecar","image":"envoy:1.30","args":["--a","--b"],"readinessProbe":{"httpGet":{"path":"/ready","port":8080},"periodSeconds":10}}]}}}}`
	if err := utiljson.Unmarshal([]byte(src), &obj); err != nil {
		panic(err)
	}
	return obj
}
