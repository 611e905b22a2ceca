package diff

import (
	"slices"
	"strconv"

	"kpatch.dev/kpatch/internal/listalign"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// listDiff adds the changes between two lists: item by item, addressed by
// the list's key where it has one (the Kubernetes patchMergeKey of a
// built-in kind's list, else name), else by index; or the list whole
// where item changes cannot reach the target.
func (d *objectDiff) listDiff(path kpatch.Path, loc string, sc schemaCursor, base, target []any) {
	if d.rebuild[loc] || len(base) == 0 {
		d.setList(path, sc, base, target)
		return
	}
	if key := listalign.IdentityKey(sc.mergeKey, base, target); key != "" {
		d.keyedList(path, loc, sc, key, base, target)
		return
	}
	d.keylessList(path, loc, sc, base, target)
}

// selectSegment addresses the item whose field key has the text value.
func selectSegment(kind kpatch.SegmentKind, key, value string) kpatch.Segment {
	return kpatch.Segment{Kind: kind, Key: []string{key}, Value: value, ByMatch: kind != kpatch.Select}
}

// keyedList diffs two lists whose items a key identifies: the items gone
// (and those that moved) are deleted by key, the items in both change in
// place, and the new (and moved) items are inserted after the item they
// follow in target (the last one appended, the first one prepended).
func (d *objectDiff) keyedList(path kpatch.Path, loc string, sc schemaCursor, key string, base, target []any) {
	kept := keptItems(base, target, key)
	if d.insertionsMeetTwins(base, target, kept, sc) {
		d.setList(path, sc, base, target)
		return
	}
	keptBase := make(map[int]bool, len(kept))
	for _, bi := range kept {
		keptBase[bi] = true
	}
	for bi, it := range base {
		if !keptBase[bi] {
			k, _ := listalign.KeyText(it, key)
			d.changes = append(d.changes, Change{Kind: DeleteValue, Path: with(path, selectSegment(kpatch.DeleteItems, key, k)), Old: it})
		}
	}
	for ti, it := range target {
		if bi, ok := kept[ti]; ok {
			k, _ := listalign.KeyText(it, key)
			d.value(with(path, selectSegment(kpatch.Select, key, k)), loc+"/"+strconv.Itoa(ti), sc.item(), base[bi], it)
		}
	}
	for ti, it := range target {
		if _, ok := kept[ti]; !ok {
			k, _ := listalign.KeyText(it, key)
			d.changes = append(d.changes, Change{Kind: InsertItem, Path: with(path, keyedPlace(target, ti, key)), Value: it,
				Item: selectSegment(kpatch.Select, key, k), schema: sc.item()})
		}
	}
}

// keptItems returns the items of target (index to base index) whose key
// base has, in the longest run that keeps its base order: the items that
// stay where they are. The others are new, or moved.
func keptItems(base, target []any, key string) map[int]int {
	baseAt := make(map[string]int, len(base))
	for i, it := range base {
		k, _ := listalign.KeyText(it, key)
		baseAt[k] = i
	}
	var order, common []int // base index of each target item in both lists
	for ti, it := range target {
		k, _ := listalign.KeyText(it, key)
		if bi, ok := baseAt[k]; ok {
			order = append(order, bi)
			common = append(common, ti)
		}
	}
	kept := make(map[int]int, len(common))
	for i, in := range listalign.LongestIncreasing(order) {
		if in {
			kept[common[i]] = order[i]
		}
	}
	return kept
}

// keyedPlace returns where the item ti of target is inserted: after the
// item before it in target, which is in place by then (run again, the
// file deletes a moved item and puts it back there); the last item
// appended, the first one before index 0.
func keyedPlace(target []any, ti int, key string) kpatch.Segment {
	switch {
	case ti == 0 && len(target) > 1:
		return kpatch.Segment{Kind: kpatch.InsertBefore, Index: 0}
	case ti > 0 && ti < len(target)-1:
		prev, _ := listalign.KeyText(target[ti-1], key)
		return selectSegment(kpatch.InsertAfter, key, prev)
	}
	return kpatch.Segment{Kind: kpatch.Append}
}

// insertionsMeetTwins reports whether a target item that is not kept
// could meet, once inserted, an item the engine takes for its twin (see
// twinIndex): the kept items hold their base and then their target
// values, and every insertion adds to them.
func (d *objectDiff) insertionsMeetTwins(base, target []any, kept map[int]int, sc schemaCursor) bool {
	present := newTwinIndex(sc.mergeKey)
	for ti, bi := range kept {
		present.add(base[bi])
		present.add(target[ti])
	}
	for ti, it := range target {
		if _, ok := kept[ti]; ok {
			continue
		}
		if present.meets(it) {
			return true
		}
		present.add(it)
	}
	return false
}

// keylessList diffs two lists without a key, aligned as a line diff
// aligns texts: deletions by a selector that only the deleted item
// matches (never by index, which is not idempotent), changes in place by
// index, insertions by position. A list where that is not possible is
// written whole.
func (d *objectDiff) keylessList(path kpatch.Path, loc string, sc schemaCursor, base, target []any) {
	steps := listalign.Lists(base, target, listalign.SameShape)
	var deletions []Change
	remaining := len(base)
	for _, s := range steps {
		if s.Op != listalign.Delete {
			continue
		}
		sel, ok := uniqueSelector(base[s.Base], base, target)
		if !ok {
			d.setList(path, sc, base, target)
			return
		}
		deletions = append(deletions, Change{Kind: DeleteValue, Path: with(path, sel), Old: base[s.Base]})
		remaining--
	}
	if keylessInsertionsMeetTwins(steps, base, target, sc.mergeKey) {
		d.setList(path, sc, base, target)
		return
	}
	d.changes = append(d.changes, deletions...)
	p := 0
	for _, s := range steps {
		switch s.Op {
		case listalign.Keep:
			p++
		case listalign.Pair:
			d.value(with(path, indexSegment(p)), loc+"/"+strconv.Itoa(s.Target), sc.item(), base[s.Base], target[s.Target])
			p++
		case listalign.Insert:
			at := kpatch.Segment{Kind: kpatch.Append}
			if p < remaining {
				at = kpatch.Segment{Kind: kpatch.InsertBefore, Index: p}
			}
			d.changes = append(d.changes, Change{Kind: InsertItem, Path: with(path, at), Value: target[s.Target],
				Item: indexSegment(p), schema: sc.item()})
			remaining++
			p++
		}
	}
}

// uniqueSelector returns [delete=k=v] for a map item whose top-level
// field k has a value that no other item of base and no item of target
// has: deleting by it removes that item and, run again, nothing else.
func uniqueSelector(item any, base, target []any) (kpatch.Segment, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return kpatch.Segment{}, false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		text, ok := listalign.ScalarText(m[k])
		if !ok || !pathKey(k) || matchesCount(base, k, text) != 1 || matchesCount(target, k, text) != 0 {
			continue
		}
		return selectSegment(kpatch.DeleteItems, k, text), true
	}
	return kpatch.Segment{}, false
}

// matchesCount counts the items whose field key has the text value.
func matchesCount(items []any, key, value string) int {
	n := 0
	for _, it := range items {
		if t, ok := listalign.KeyText(it, key); ok && t == value {
			n++
		}
	}
	return n
}

// keylessInsertionsMeetTwins reports whether an inserted item could meet
// a twin among the items of the list at any time: those of base that are
// not deleted, in their base and target values, and the insertions
// before it.
func keylessInsertionsMeetTwins(steps []listalign.Step, base, target []any, mergeKey string) bool {
	present := newTwinIndex(mergeKey)
	for _, s := range steps {
		if s.Op == listalign.Keep || s.Op == listalign.Pair {
			present.add(base[s.Base])
			present.add(target[s.Target])
		}
	}
	for _, s := range steps {
		if s.Op != listalign.Insert {
			continue
		}
		if present.meets(target[s.Target]) {
			return true
		}
		present.add(target[s.Target])
	}
	return false
}
