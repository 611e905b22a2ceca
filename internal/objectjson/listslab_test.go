package objectjson

import "testing"

// TestListsAreCutApart checks that the lists of a Maps are each their
// own: an append past a list's room makes another list instead of
// writing over the next one cut, and a list longer than a slab's lists
// is made for itself.
func TestListsAreCutApart(t *testing.T) {
	o := TakeMaps()
	defer o.Release()
	first := append(o.List(2), "a", "b")
	second := append(o.List(1), "c")
	grown := append(first, "x") // past its room
	if second[0] != "c" || len(grown) != 3 || &grown[0] == &first[0] {
		t.Fatalf("an append past a list's room wrote over the next list: %v %v", second, grown)
	}
	var lists [][]any
	for i := range listChunk { // more than one chunk
		lists = append(lists, append(o.List(3), i, i, i))
	}
	for i, l := range lists {
		if len(l) != 3 || l[0] != i || l[2] != i {
			t.Fatalf("list %d holds %v", i, l)
		}
	}
	if long := o.List(maxSlabList + 1); cap(long) != maxSlabList+1 || len(long) != 0 {
		t.Fatalf("a long list: len %d cap %d", len(long), cap(long))
	}
}

// TestListsAreEmptiedOnRelease checks that a Maps goes back to its pool
// without the items of its lists (the request's values, which it would
// keep alive), and cuts the same room again.
func TestListsAreEmptiedOnRelease(t *testing.T) {
	o := new(Maps)
	_ = append(o.List(2), "secret", map[string]any{"k": "v"})
	for range listChunk / 2 {
		_ = append(o.List(3), 1, 2, 3)
	}
	o.Release()
	for i, c := range o.lists.chunks {
		for j, v := range c[:cap(c)] {
			if v != nil {
				t.Fatalf("chunk %d item %d keeps %v", i, j, v)
			}
		}
	}
	held := len(o.lists.chunks)
	for range listChunk / 2 {
		_ = o.List(3)
	}
	if len(o.lists.chunks) != held {
		t.Errorf("chunks %d after a release, %d before: the room was not cut again", len(o.lists.chunks), held)
	}
}
