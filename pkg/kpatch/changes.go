package kpatch

import (
	"unsafe"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// changedSince reports whether the object differs from what it was when
// its root was before and the undo log mark records long, the start of
// the file being applied: whether the records since then, which hold the
// values they replaced, changed any value. Values compare as SameJSON
// compares them: numbers by value.
//
// The engine changes only the maps and lists it owns, which are only
// reachable through owned ones. A slot of a container the file made
// (a copy, a new map or list) is inside a value that the file put in a
// slot of a container made before it, or in the root: comparing those
// slots, the file's topmost ones, compares the ones below. When no record
// replaced a container made before the file, those containers are all
// still in the object, and the values the records replaced are as they
// were: the object changed exactly when one of the topmost slots holds
// another value than its first record replaced. Otherwise (a file that
// replaces or removes what an earlier file built, a merge patch after
// other files) the object before is read through the records and
// compared with the object now, from the root.
func (a *applier) changedSince(mark int, before map[string]any) bool {
	recs := a.undo[mark:]
	if len(recs) == 0 {
		return false
	}
	for i := range recs {
		if a.ownedBefore(recs[i].replaced()) {
			v := newBeforeView(a, recs)
			return !v.same(before, a.root)
		}
	}
	first := newFirstRecords(recs)
	for i := range recs {
		r := &recs[i]
		if !a.topmost(r) || !first.isFirst(i) {
			continue
		}
		now, present := a.slotValue(r)
		if present != (r.had || r.m == nil) || present && !jsonvalue.Equal(r.replaced(), now) {
			return true
		}
	}
	return false
}

// ownedBefore reports whether v is a map or list that a file before the
// current one made.
func (a *applier) ownedBefore(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return a.madeBefore(mapPointer(x))
	case []any:
		return len(x) > 0 && a.madeBefore(listPointer(x))
	}
	return false
}

func (a *applier) madeBefore(p unsafe.Pointer) bool {
	f, ok := a.owned[p]
	return ok && f < a.file
}

// topmost reports whether the record is of a slot of the root or of a
// container made before the current file.
func (a *applier) topmost(r *undoRecord) bool {
	switch {
	case r.m != nil:
		return a.madeBefore(mapPointer(r.m))
	case r.l != nil:
		return a.madeBefore(listPointer(r.l))
	}
	return true
}

// replaced is the value the record's slot held before it.
func (r *undoRecord) replaced() any {
	if r.m == nil && r.l == nil {
		return r.root
	}
	return r.old
}

// slotValue is what the slot of a record holds now.
func (a *applier) slotValue(r *undoRecord) (any, bool) {
	switch {
	case r.m != nil:
		v, ok := r.m[r.key]
		return v, ok
	case r.l != nil:
		return r.l[r.idx], true
	}
	return a.root, true
}

// sameSlot reports whether two records are of the same slot.
func sameSlot(r, s *undoRecord) bool {
	switch {
	case r.m != nil:
		return s.m != nil && r.key == s.key && mapPointer(r.m) == mapPointer(s.m)
	case r.l != nil:
		return s.l != nil && r.idx == s.idx && listPointer(r.l) == listPointer(s.l)
	}
	return s.m == nil && s.l == nil
}

// slotKey identifies a slot in a map of them.
type slotKey struct {
	c   unsafe.Pointer
	key string
	idx int
}

func keyOf(r *undoRecord) slotKey {
	switch {
	case r.m != nil:
		return slotKey{c: mapPointer(r.m), key: r.key}
	case r.l != nil:
		return slotKey{c: listPointer(r.l), idx: r.idx}
	}
	return slotKey{idx: -1}
}

// firstRecordsScan is how many records are compared pairwise rather
// than through a map.
const firstRecordsScan = 64

// firstRecords finds the first record of each slot among records.
type firstRecords struct {
	recs  []undoRecord
	first map[slotKey]int // the index of each slot's first record; nil for few records
}

func newFirstRecords(recs []undoRecord) firstRecords {
	f := firstRecords{recs: recs}
	if len(recs) > firstRecordsScan {
		f.first = make(map[slotKey]int, len(recs))
		for i := range recs {
			k := keyOf(&recs[i])
			if _, ok := f.first[k]; !ok {
				f.first[k] = i
			}
		}
	}
	return f
}

// isFirst reports whether no record before the one at i is of its slot.
func (f *firstRecords) isFirst(i int) bool {
	if f.first != nil {
		return f.first[keyOf(&f.recs[i])] == i
	}
	for j := range i {
		if sameSlot(&f.recs[j], &f.recs[i]) {
			return false
		}
	}
	return true
}

// of returns the first record of the slot k, or nil.
func (f *firstRecords) of(k slotKey) *undoRecord {
	if f.first != nil {
		if i, ok := f.first[k]; ok {
			return &f.recs[i]
		}
		return nil
	}
	for i := range f.recs {
		if keyOf(&f.recs[i]) == k {
			return &f.recs[i]
		}
	}
	return nil
}
