package kpatch

import (
	"unsafe"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// beforeView reads the object as it was before a file's undo records:
// a map entry or list item a record wrote holds the value of the first
// record of its slot; all else holds what it holds now. Only the maps and
// lists the applier owns can have records.
type beforeView struct {
	a     *applier
	first firstRecords
	// delta is, for each map with records, how many more entries it
	// had before them than now.
	delta map[unsafe.Pointer]int
	// lists are the lists with records.
	lists map[unsafe.Pointer]struct{}
}

func newBeforeView(a *applier, recs []undoRecord) beforeView {
	v := beforeView{a: a, first: newFirstRecords(recs)}
	for i := range recs {
		r := &recs[i]
		switch {
		case r.l != nil:
			if v.lists == nil {
				v.lists = map[unsafe.Pointer]struct{}{}
			}
			v.lists[listPointer(r.l)] = struct{}{}
		case r.m != nil:
			if v.delta == nil {
				v.delta = map[unsafe.Pointer]int{}
			}
			p := mapPointer(r.m)
			d := v.delta[p]
			if v.first.isFirst(i) {
				_, now := r.m[r.key]
				if r.had && !now {
					d++
				} else if !r.had && now {
					d--
				}
			}
			v.delta[p] = d
		}
	}
	return v
}

// same reports whether b read before the records equals n read now.
func (v *beforeView) same(b, n any) bool {
	switch x := b.(type) {
	case map[string]any:
		if !v.a.owns(mapPointer(x)) {
			return jsonvalue.Equal(x, n) // never changed, nor anything in it
		}
		y, ok := n.(map[string]any)
		return ok && v.sameMap(x, y)
	case []any:
		if len(x) == 0 || !v.a.owns(listPointer(x)) {
			return jsonvalue.Equal(x, n)
		}
		y, ok := n.([]any)
		if !ok || len(x) != len(y) { // an owned list keeps its length
			return false
		}
		for i := range x {
			if !v.same(v.item(x, i), y[i]) {
				return false
			}
		}
		return true
	}
	return jsonvalue.Equal(b, n)
}

// sameMap compares the owned map b read before the records with n now.
func (v *beforeView) sameMap(b, n map[string]any) bool {
	if len(b)+v.delta[mapPointer(b)] != len(n) {
		return false
	}
	for k, nv := range n {
		bv, ok := v.entry(b, k)
		if !ok || !v.same(bv, nv) {
			return false
		}
	}
	return true
}

// entry is what m held at key before the records.
func (v *beforeView) entry(m map[string]any, key string) (any, bool) {
	if _, touched := v.delta[mapPointer(m)]; touched {
		if r := v.first.of(slotKey{c: mapPointer(m), key: key}); r != nil {
			return r.old, r.had
		}
	}
	val, ok := m[key]
	return val, ok
}

// item is what l held at i before the records.
func (v *beforeView) item(l []any, i int) any {
	if _, touched := v.lists[listPointer(l)]; touched {
		if r := v.first.of(slotKey{c: listPointer(l), idx: i}); r != nil {
			return r.old
		}
	}
	return l[i]
}
