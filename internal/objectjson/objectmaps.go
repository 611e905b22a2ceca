package objectjson

import (
	"math/bits"
	"sync"
)

// Maps lends the maps of one admitted object, those the decoder
// makes and those the engine copies and builds (ApplyOptions.NewMap), the
// lists the engine copies and builds (ApplyOptions.NewList, a listSlab), and
// takes them back, emptied, when the request is answered: the next
// request fills them again instead of allocating its own. A map is lent by size
// class (at most 8 members, then powers of two up to maxPooledMap), made
// at its class's size, so that it never grows while it is lent; bigger
// maps are made as usual and left to the garbage collector.
//
// Lending is sound because nothing keeps a map of the object past the
// request: the engine and replacements write only to their own copies
// (their input is never modified), and what outlives the request (the
// JSONPatch, warnings, log lines, the values cache's keys) holds bytes
// and strings, never the object's maps. A map the engine grows past its
// class goes back to the pool bigger, which wastes room, never
// correctness.
// TestObjectMapsAreNotKept holds the handler to it.
type Maps struct {
	classes [mapClasses]mapClass
	// lists is the slab the engine's lists are cut from (List).
	lists listSlab
}

// mapClass is the maps of one size class: maps[:next] are lent.
type mapClass struct {
	maps []map[string]any
	next int
}

const (
	// maxPooledMap is the largest map lent; a bigger object's map is made
	// for it.
	maxPooledMap = 1 << 12
	mapClasses   = 1 + 12 - 3 // 8, 16, ..., 4096
	// maxLentMaps is how many maps a pooled Maps may hold; one that
	// lent more (an object of many maps) is dropped.
	maxLentMaps = 4096
)

var objectMapsPool = sync.Pool{New: func() any { return new(Maps) }}

// TakeMaps returns an Maps from the pool; give it back with
// release.
func TakeMaps() *Maps { return objectMapsPool.Get().(*Maps) }

// mapClassOf is the size class of a map of n members, and its size.
func mapClassOf(n int) (class, size int) {
	if n <= 8 {
		return 0, 8
	}
	c := bits.Len(uint(n-1)) - 3
	return c, 8 << c
}

// get returns an empty map for n members. A nil Maps makes one.
func (o *Maps) Get(n int) map[string]any {
	if o == nil || n > maxPooledMap {
		return make(map[string]any, n)
	}
	c, size := mapClassOf(n)
	mc := &o.classes[c]
	if mc.next == len(mc.maps) {
		mc.maps = append(mc.maps, make(map[string]any, size))
	}
	m := mc.maps[mc.next]
	mc.next++
	return m
}

// List returns an empty list with room for n items, cut from the slab
// of o (ApplyOptions.NewList), which it never outgrows: an append past n
// makes another list. A nil Maps, or a list of more than maxSlabList
// items, makes one.
func (o *Maps) List(n int) []any {
	if o == nil || n == 0 || n > maxSlabList {
		return make([]any, 0, n)
	}
	return o.lists.cut(n)
}

// release empties the maps lent and puts o back in the pool; the object
// they made must not be used after it.
func (o *Maps) Release() {
	if o != nil && o.empty() <= maxLentMaps && o.lists.empty() <= maxSlabChunks {
		objectMapsPool.Put(o)
	}
}

// empty empties the maps lent, to be lent again, and says how many maps o
// holds.
func (o *Maps) empty() (held int) {
	for i := range o.classes {
		mc := &o.classes[i]
		for _, m := range mc.maps[:mc.next] {
			clear(m)
		}
		mc.next = 0
		held += len(mc.maps)
	}
	return held
}
