package main

import (
	"slices"
	"strconv"

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
	if key := identityKey(sc.mergeKey, base, target); key != "" {
		d.keyedList(path, loc, sc, key, base, target)
		return
	}
	d.keylessList(path, loc, sc, base, target)
}

// identityKey returns the field that identifies the items of both lists:
// the merge key, else name, when every item is a map holding it as a
// scalar, and no two items of a list share its value. "" when none does.
func identityKey(mergeKey string, base, target []any) string {
	for _, key := range []string{mergeKey, "name"} {
		if key != "" && uniqueKeys(base, key) && uniqueKeys(target, key) {
			return key
		}
	}
	return ""
}

// uniqueKeys reports whether every item is a map whose field key is a
// scalar of its own text.
func uniqueKeys(items []any, key string) bool {
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		text, ok := keyText(it, key)
		if !ok || seen[text] {
			return false
		}
		seen[text] = true
	}
	return true
}

// keyText returns the text of an item's field key, as a selector
// compares it.
func keyText(item any, key string) (string, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return "", false
	}
	return scalarText(m[key])
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
			k, _ := keyText(it, key)
			d.changes = append(d.changes, change{kind: deleteValue, path: with(path, selectSegment(kpatch.DeleteItems, key, k)), old: it})
		}
	}
	for ti, it := range target {
		if bi, ok := kept[ti]; ok {
			k, _ := keyText(it, key)
			d.value(with(path, selectSegment(kpatch.Select, key, k)), loc+"/"+strconv.Itoa(ti), sc.item(), base[bi], it)
		}
	}
	for ti, it := range target {
		if _, ok := kept[ti]; !ok {
			k, _ := keyText(it, key)
			d.changes = append(d.changes, change{kind: insertItem, path: with(path, keyedPlace(target, ti, key)), value: it,
				item: selectSegment(kpatch.Select, key, k), schema: sc.item()})
		}
	}
}

// keptItems returns the items of target (index to base index) whose key
// base has, in the longest run that keeps its base order: the items that
// stay where they are. The others are new, or moved.
func keptItems(base, target []any, key string) map[int]int {
	baseAt := make(map[string]int, len(base))
	for i, it := range base {
		k, _ := keyText(it, key)
		baseAt[k] = i
	}
	var order, common []int // base index of each target item in both lists
	for ti, it := range target {
		k, _ := keyText(it, key)
		if bi, ok := baseAt[k]; ok {
			order = append(order, bi)
			common = append(common, ti)
		}
	}
	kept := make(map[int]int, len(common))
	for i, in := range longestIncreasing(order) {
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
		prev, _ := keyText(target[ti-1], key)
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
	steps := alignLists(base, target, sameShape)
	var deletions []change
	remaining := len(base)
	for _, s := range steps {
		if s.op != alignDelete {
			continue
		}
		sel, ok := uniqueSelector(base[s.base], base, target)
		if !ok {
			d.setList(path, sc, base, target)
			return
		}
		deletions = append(deletions, change{kind: deleteValue, path: with(path, sel), old: base[s.base]})
		remaining--
	}
	if keylessInsertionsMeetTwins(steps, base, target, sc.mergeKey) {
		d.setList(path, sc, base, target)
		return
	}
	d.changes = append(d.changes, deletions...)
	p := 0
	for _, s := range steps {
		switch s.op {
		case alignKeep:
			p++
		case alignPair:
			d.value(with(path, indexSegment(p)), loc+"/"+strconv.Itoa(s.target), sc.item(), base[s.base], target[s.target])
			p++
		case alignInsert:
			at := kpatch.Segment{Kind: kpatch.Append}
			if p < remaining {
				at = kpatch.Segment{Kind: kpatch.InsertBefore, Index: p}
			}
			d.changes = append(d.changes, change{kind: insertItem, path: with(path, at), value: target[s.target],
				item: indexSegment(p), schema: sc.item()})
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
		text, ok := scalarText(m[k])
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
		if t, ok := keyText(it, key); ok && t == value {
			n++
		}
	}
	return n
}

// keylessInsertionsMeetTwins reports whether an inserted item could meet
// a twin among the items of the list at any time: those of base that are
// not deleted, in their base and target values, and the insertions
// before it.
func keylessInsertionsMeetTwins(steps []alignStep, base, target []any, mergeKey string) bool {
	present := newTwinIndex(mergeKey)
	for _, s := range steps {
		if s.op == alignKeep || s.op == alignPair {
			present.add(base[s.base])
			present.add(target[s.target])
		}
	}
	for _, s := range steps {
		if s.op != alignInsert {
			continue
		}
		if present.meets(target[s.target]) {
			return true
		}
		present.add(target[s.target])
	}
	return false
}
