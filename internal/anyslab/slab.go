// Package anyslab boxes values into interfaces from slabs.
//
// An interface holding a string, an int64, a float64 or a slice is a
// type word and a pointer to a copy of the value, which Go allocates one
// value at a time (the runtime's convTstring, convT64, convTslice). A
// decoded JSON document holds hundreds of them. A Slab instead writes
// each copy into the next slot of a slice it allocated once and builds
// the interface from the slot's address.
//
// The invariant that makes this sound: a slot is written exactly once,
// before its interface exists, and never again (the slab only moves
// forward, and a value held by an interface cannot be written through
// it); the garbage collector follows the interface's pointer into the
// slab's array, which stays alive as long as any of its interfaces does.
// TestBoxedBehaveAsConverted holds the interfaces to the converted ones.
package anyslab

import "unsafe"

// Boxable are the types a Slab boxes: those a decoded JSON value holds
// by pointer.
type Boxable interface {
	~string | ~int64 | ~float64 | ~[]any
}

// Slab boxes values of type T. The zero value is ready to use and
// allocates slots sixteen at a time; Sized allocates them all at once.
// A Slab is not safe for concurrent use.
type Slab[T Boxable] struct {
	free []T
}

// chunk is how many slots a Slab allocates when its slots run out.
const chunk = 16

// Sized is a Slab with n slots allocated in one go (none when n is 0).
func Sized[T Boxable](n int) Slab[T] {
	return Slab[T]{free: make([]T, n)}
}

// eface is the layout of an interface{} value (the runtime's eface).
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// Box is v in an interface, as any(v) is, its copy in the next slot.
func (s *Slab[T]) Box(v T) any {
	if len(s.free) == 0 {
		s.free = make([]T, chunk)
	}
	p := &s.free[0]
	*p = v
	s.free = s.free[1:]
	var zero T
	boxed := any(zero) // the type word; the zero values of Boxable types are not allocated
	(*eface)(unsafe.Pointer(&boxed)).data = unsafe.Pointer(p)
	return boxed
}
