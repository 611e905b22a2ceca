package replacement

import (
	"maps"
	"slices"
	"unsafe"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// editor changes objects copy-on-write: a map or list is copied the first
// time a call writes into it, and the copy, owned by the call, is written
// in place after that. Inputs are never modified; the result shares every
// part that did not change with them.
type editor struct {
	owned map[unsafe.Pointer]struct{}
}

func newEditor() *editor { return &editor{owned: map[unsafe.Pointer]struct{}{}} }

// writableMap returns m if this call owns it, else an owned copy.
func (e *editor) writableMap(m map[string]any) map[string]any {
	if _, ok := e.owned[jsonvalue.MapPointer(m)]; ok {
		return m
	}
	c := maps.Clone(m)
	if c == nil {
		c = map[string]any{}
	}
	e.owned[jsonvalue.MapPointer(c)] = struct{}{}
	return c
}

// writableList returns l if this call owns it, else an owned copy.
func (e *editor) writableList(l []any) []any {
	if len(l) > 0 {
		if _, ok := e.owned[jsonvalue.ListPointer(l)]; ok {
			return l
		}
	}
	c := slices.Clone(l)
	if len(c) > 0 {
		e.owned[jsonvalue.ListPointer(c)] = struct{}{}
	}
	return c
}

// appendItem appends to a list, keeping ownership of the new array.
func (e *editor) appendItem(l []any, item any) []any {
	l = append(e.writableList(l), item)
	e.owned[jsonvalue.ListPointer(l)] = struct{}{}
	return l
}

// newContainer is an owned empty map, or an empty list when the next step
// reads a list.
func (e *editor) newContainer(next step) any {
	if next.createsList() {
		return []any{}
	}
	m := map[string]any{}
	e.owned[jsonvalue.MapPointer(m)] = struct{}{}
	return m
}
