package anyslab

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"testing"
)

// TestBoxedBehaveAsConverted holds boxed values to the same values
// converted by Go: equal, of the same type, printed and encoded alike,
// and intact after slabs filled up and garbage collections.
func TestBoxedBehaveAsConverted(t *testing.T) {
	var strs Slab[string]
	ints := Sized[int64](3)
	var floats Slab[float64]
	var lists Slab[[]any]
	var got, want []any
	for i := range 100 {
		s := fmt.Sprintf("s%d", i)
		l := []any{s, int64(i)}
		got = append(got, strs.Box(s), ints.Box(int64(i)), floats.Box(float64(i)+0.5), lists.Box(l))
		want = append(want, s, int64(i), float64(i)+0.5, l)
	}
	runtime.GC()
	for i := range got {
		if got[i] == nil || reflect.TypeOf(got[i]) != reflect.TypeOf(want[i]) || !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%d: %#v, want %#v", i, got[i], want[i])
		}
		if _, ok := got[i].([]any); !ok && got[i] != want[i] {
			t.Fatalf("%d: %#v != %#v", i, got[i], want[i])
		}
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("encoded %s, want %s", g, w)
	}
	if l := got[3].([]any); cap(l) != 2 {
		t.Fatalf("a boxed list keeps its capacity: %d", cap(l))
	}
}

func TestBoxAllocatesOnlyItsSlots(t *testing.T) {
	s := Sized[string](1000)
	if n := testing.AllocsPerRun(100, func() { _ = s.Box("x") }); n != 0 {
		t.Fatalf("%v allocations per boxed string, want 0", n)
	}
}
