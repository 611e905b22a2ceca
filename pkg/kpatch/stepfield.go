package kpatch

import "strings"

// fieldStep is a struct field or a map key: name, [key.with.dots]. On a
// list it is the field of every item.
type fieldStep struct {
	name      string
	bracketed bool
	col       int
}

func (f *fieldStep) column() int { return f.col }

func (f *fieldStep) write(b *strings.Builder, first bool) {
	writeField(b, f.name, f.bracketed, first)
}

func (f *fieldStep) listTokens(out []listToken) []listToken {
	return append(out, listToken{kind: 'f', text: f.name})
}

func (f *fieldStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	return a.applyField(s, cur, c, f.name)
}

// resolve finds the field in a struct, or the value type of a map. A
// field of a list of objects is the field of every item; a field named
// like an image part that ends a path through a string image is an image
// part.
func (f *fieldStep) resolve(w typeWalk, n *typeNode) (typed, *problem) {
	t := typed{step: f}
	if n.kind == tList && (n.elem.kind == tStruct || n.elem.kind == tMap || n.elem.kind == tAny) {
		n, t.step = n.elem, itemsFieldStep{f}
	}
	switch n.kind {
	case tStruct:
		if f.name == allContainersField && !f.bracketed && n.fields[f.name] == nil && hasContainerLists(n) {
			return resolveAllContainers(w, n, f.col)
		}
		if t.node = n.fields[f.name]; t.node == nil {
			return t, errorf(ErrUnknownField, "%s has no field %q at %s", n.name, f.name, w.at())
		}
		t.next = typeFacts{imageField: f.name == "image" && t.node.kind == tString, mergeKey: n.mergeKeys[f.name]}
		return t, nil
	case tMap:
		t.node = n.elem
		return t, nil
	case tAny:
		return t, nil
	case tString:
		if w.prev.imageField && w.last() && isImagePart(f.name) && w.pl.act != actInsert {
			return typed{step: imagePartStep{f}, node: stringNode}, nil
		}
		return t, errorf(ErrType, "%s is a string; it has no field %q", w.at(), f.name)
	}
	return t, errorf(ErrType, "%s is %s; it has no field %q", w.at(), n.describe(), f.name)
}

// itemsFieldStep is a field of every item of the list before it, as the
// schema says: containers.image.
type itemsFieldStep struct{ *fieldStep }

func (f itemsFieldStep) listTokens(out []listToken) []listToken {
	return f.fieldStep.listTokens(append(out, listToken{kind: 'a'}))
}

// apply performs the field on every item of the list in s. A list that
// does not exist has no items: nothing is written, no item is made up.
func (f itemsFieldStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	if cur == nil {
		return nil
	}
	return f.fieldStep.apply(a, s, cur, c)
}

// itemsOfNothing reports whether steps, performed on a value that does
// not exist, go through every item of a list before they write anything:
// the maps they would create on the way hold no list, so the list has no
// items and the steps write nothing. A selector, an index or an insertion
// met first decides otherwise (no match, past the end, a new item).
func itemsOfNothing(steps []step) bool {
	for i, st := range steps {
		switch st.(type) {
		case *fieldStep, keyStep:
			continue
		case itemsFieldStep, *allStep:
			return true
		case *allContainersStep:
			return i+1 < len(steps) && !isInsertion(steps[i+1])
		}
		return false
	}
	return false
}

// keyStep is an index on a map, as the schema says: the digits as
// written are the key.
type keyStep struct{ *indexStep }

func (k keyStep) write(b *strings.Builder, first bool) { writeField(b, k.text, false, first) }

func (k keyStep) listTokens(out []listToken) []listToken {
	return append(out, listToken{kind: 'f', text: k.text})
}

func (k keyStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	return a.applyField(s, cur, c, k.text)
}

// applyField performs a field step on the value in s: it walks into the
// map's key, creating the map where there is none, or deletes the key at
// the end of a delete; on a list, it walks into every item. No map is
// created for a delete, nor for a path that goes on through every item of
// a list it would have to create (see itemsOfNothing).
func (a *applier) applyField(s slot, cur any, c cursor, name string) *problem {
	switch v := cur.(type) {
	case map[string]any:
		if c.last() && c.deleting() {
			if _, ok := v[name]; ok {
				a.deleteKey(a.writableMap(s, v), name)
			}
			return nil
		}
		m := a.writableMap(s, v)
		return c.next(a, slot{m: m, key: name})
	case []any:
		return a.applyEveryItem(s, v, c, name)
	case nil:
		if c.deleting() || itemsOfNothing(c.pl.steps[c.i+1:]) || a.customItemsOfNothing(c) {
			return nil
		}
		m := a.newMap()
		a.set(s, m)
		return c.next(a, slot{m: m, key: name})
	}
	return c.fail(errorf(ErrType, "%s is %s, not a map; it has no field %q", c.at(), describeValue(cur), name))
}

// applyEveryItem performs a field step on every item of a list, each of
// which must be a map.
func (a *applier) applyEveryItem(s slot, list []any, c cursor, name string) *problem {
	a.meter.count(len(list), 0)
	for j := range list {
		if _, ok := list[j].(map[string]any); !ok {
			return c.fail(errorf(ErrType, "%s holds %s; it has no field %q", c.at(), describeValue(list[j]), name))
		}
	}
	walks := walksItems(c.pl.steps, c.i)
	var l []any
	for j := range list {
		in := c
		if walks { // the items of allContainers
			var held bool
			var err *problem
			if in, held, err = c.enter(a, j, list[j]); err != nil {
				return err
			} else if !held {
				continue
			}
		}
		if l == nil {
			l = a.writableList(s, list)
		}
		if err := in.again(a, slot{l: l, idx: j}); err != nil {
			return err
		}
	}
	return nil
}
