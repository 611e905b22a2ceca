package objectjson

import "reflect"

// boxChunk is how many values of one type are boxed together at most.
const boxChunk = 64

// boxes boxes values of type T into interfaces boxChunk at a time, in one
// allocation: Go boxes a string, an int64, a float64 or a slice into an
// interface by allocating a copy of that one value, and a decoded object
// holds a hundred of them. boxes copies a whole array of values into one
// interface instead (reflect.ValueOf) and takes each element's interface
// from it (Value.Index, Value.Interface): reflect hands out an element
// of an array that cannot be written (it was copied into an interface,
// which no one can write through) by pointing into that copy, without
// copying it again. The values are Go's own interfaces, as any(v) makes
// them (TestBoxesAreConverted); were reflect to copy each element, they
// would still be, each one allocation again (TestDecodeAllocations
// counts).
type boxes[T any] struct {
	values [boxChunk]T
	slots  [boxChunk]int // where each value's interface goes in out
	n      int
}

// add gathers v for out[slot], boxing the values gathered when they fill
// a chunk.
func (b *boxes[T]) add(v T, slot int, out []any) {
	b.values[b.n], b.slots[b.n] = v, slot
	if b.n++; b.n == boxChunk {
		b.flush(out)
	}
}

// flush boxes the values gathered into their slots of out, in an array
// of 4, 16 or boxChunk values, the smallest that holds them.
func (b *boxes[T]) flush(out []any) {
	var chunk reflect.Value // the one allocation: a copy of the array
	switch {
	case b.n == 0:
		return
	case b.n <= 4:
		chunk = reflect.ValueOf([4]T(b.values[:4]))
	case b.n <= 16:
		chunk = reflect.ValueOf([16]T(b.values[:16]))
	default:
		chunk = reflect.ValueOf(b.values)
	}
	for i, slot := range b.slots[:b.n] {
		out[slot] = chunk.Index(i).Interface()
	}
	clear(b.values[:b.n])
	b.n = 0
}
