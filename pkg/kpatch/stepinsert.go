package kpatch

import "strings"

// insertStep adds an item to a list: [-] appends; [-N], [-k=v] and
// [-len] insert before, [+N], [+k=v] and [+last] after. An item the list
// already holds (see twin) is updated instead, so that an insertion is
// idempotent.
type insertStep struct {
	kind  SegmentKind // Append, InsertBefore or InsertAfter
	index int
	last  bool   // [+last], [-len]
	match *match // [-k=v], [+k=v]; nil by index
	col   int
}

func (x *insertStep) column() int { return x.col }

func (x *insertStep) write(b *strings.Builder, _ bool) {
	sel := ""
	if x.match != nil {
		sel = x.match.String()
	}
	b.WriteString(insertionText(x.kind, x.last, x.index, sel))
}

func (x *insertStep) listTokens(out []listToken) []listToken { return out }

// resolve checks that the step meets a list, and notes the list's merge
// key, which identifies its items.
func (x *insertStep) resolve(w typeWalk, n *typeNode) (typed, *problem) {
	t, err := resolveListStep(w, n, x, x.match)
	if err == nil {
		w.pl.mergeKey = w.prev.mergeKey
	}
	return t, err
}

// apply adds the item to the list in s, or updates its twin in place.
func (x *insertStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	var list []any
	switch v := cur.(type) {
	case []any:
		list = v
	case nil:
	default:
		return c.fail(errorf(ErrType, "%s is %s; %s needs a list", c.at(), describeValue(cur), stepText(x)))
	}
	item := c.val
	if b, ok := item.(builtItem); ok {
		item = b.m
	} else if c.pl.build != nil {
		built, err := a.build(c.pl, c.vars)
		if err != nil {
			return err
		}
		item = built
	}
	a.meter.count(2*len(list), a.valueBytes) // finding a twin, copying the list
	j := -1
	if keyed := a.customListKeys(c); keyed != nil {
		j = twinByKeys(list, item, keyed.listKeys, keyed.keyDefaults)
	} else {
		j = twin(list, item, c.pl.mergeKey)
	}
	if j >= 0 {
		return a.updateTwin(s, list, j, c.pl, item, c.vars)
	}
	pos, err := x.position(list, c)
	if err != nil {
		if a.filtering && err.err == ErrNoMatch {
			return nil // no anchor: under a glob, the object has no such item
		}
		return c.fail(err)
	}
	out := a.newList(len(list) + 1)
	out = append(out, list[:pos]...)
	out = append(out, item)
	out = append(out, list[pos:]...)
	a.own(listPointer(out))
	a.set(s, out)
	return nil
}

// position is where the insertion puts its item in list.
func (x *insertStep) position(list []any, c cursor) (int, *problem) {
	switch {
	case x.kind == Append || x.last:
		return len(list), nil
	case x.match != nil:
		for j := range list {
			if !x.match.matches(list[j]) {
				continue
			}
			if x.kind == InsertAfter {
				j++
			}
			return j, nil
		}
		return 0, errorf(ErrNoMatch, "no item of %s matches %s", c.at(), x.match.String())
	case x.kind == InsertBefore:
		if x.index > len(list) {
			return 0, errorf(ErrIndex, "cannot insert before index %d: %s has %d items", x.index, c.at(), len(list))
		}
		return x.index, nil
	}
	if x.index >= len(list) {
		return 0, errorf(ErrIndex, "cannot insert after index %d: %s has %d items", x.index, c.at(), len(list))
	}
	return x.index + 1, nil
}

// build makes the item of an insertion header from its entries. The item
// is new and in no object until it is inserted, so what the entries
// write into it leaves no undo records: nothing to take back, no change
// to the object yet (see changedSince).
func (a *applier) build(pl *plan, vars *Variables) (map[string]any, *problem) {
	mark := len(a.undo)
	defer func() {
		clear(a.undo[mark:])
		a.undo = a.undo[:mark]
	}()
	holder := []any{a.newMap()}
	a.own(listPointer(holder))
	if err := a.applyBuild(slot{l: holder, idx: 0}, pl, vars); err != nil {
		return nil, err
	}
	return holder[0].(map[string]any), nil
}

// applyBuild applies an insertion header's entries to the item in s.
func (a *applier) applyBuild(s slot, pl *plan, vars *Variables) *problem {
	item := a.leafOf(pl, a.custom)
	outer, building := a.item, a.building
	a.item, a.building = item, true
	defer func() { a.item, a.building = outer, building }()
	for _, sub := range pl.build {
		val, err := sub.resolveValue(a.leafOf(sub, item), vars, &a.expanded)
		if err != nil {
			return err.orAt(sub.line, sub.valueCol)
		}
		a.setValueBytes(sub, plainValue(val))
		if e := a.walk(s, startCursor(sub, val, vars)); e != nil {
			return e
		}
	}
	return nil
}
