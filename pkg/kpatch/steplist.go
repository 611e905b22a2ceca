package kpatch

import "strings"

// indexStep is a list index: 0, [0]. On a map the digits are the key.
type indexStep struct {
	index int
	text  string // the digits as written
	col   int
}

func (x *indexStep) column() int { return x.col }

func (x *indexStep) write(b *strings.Builder, first bool) { writeBare(b, x.text, first) }

func (x *indexStep) listTokens(out []listToken) []listToken {
	return append(out, listToken{kind: 's', text: stepText(x)})
}

func (x *indexStep) resolve(w typeWalk, n *typeNode) (typed, *problem) {
	switch n.kind {
	case tList:
		return typed{step: x, node: n.elem}, nil
	case tMap:
		return typed{step: keyStep{x}, node: n.elem}, nil
	}
	return typed{}, errorf(ErrType, "%s is %s; an index needs a list", w.at(), n.describe())
}

func (x *indexStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	switch v := cur.(type) {
	case []any:
		if x.index >= len(v) {
			if c.deleting() {
				return nil
			}
			return c.fail(errorf(ErrIndex, "index %d is past the end of %s (%d items)", x.index, c.at(), len(v)))
		}
		if c.last() && c.deleting() {
			return a.removeItems(s, v, func(j int) bool { return j == x.index })
		}
		l := a.writableList(s, v)
		return c.next(a, slot{l: l, idx: x.index})
	case map[string]any:
		if c.last() && c.deleting() {
			a.deleteKey(a.writableMap(s, v), x.text)
			return nil
		}
		m := a.writableMap(s, v)
		return c.next(a, slot{m: m, key: x.text})
	case nil:
		if c.deleting() {
			return nil
		}
		return c.fail(errorf(ErrIndex, "%s does not exist; an index cannot create a list item (append with [-])", c.at()))
	}
	return c.fail(errorf(ErrType, "%s is %s; an index needs a list", c.at(), describeValue(cur)))
}

// selectStep is the list items whose field equals a text: k=v, [k.path=v].
type selectStep struct {
	match match
	col   int
}

func (x *selectStep) column() int { return x.col }

func (x *selectStep) write(b *strings.Builder, _ bool) { b.WriteString("[" + x.match.String() + "]") }

func (x *selectStep) listTokens(out []listToken) []listToken {
	return append(out, listToken{kind: 's', text: stepText(x)})
}

func (x *selectStep) resolve(w typeWalk, n *typeNode) (typed, *problem) {
	return resolveListStep(w, n, x, &x.match)
}

func (x *selectStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	switch v := cur.(type) {
	case []any:
		found, err := a.applyItems(s, v, c, &x.match)
		if err == nil && !found && !c.deleting() && !a.filtering {
			return c.fail(errorf(ErrNoMatch, "no item of %s matches %s", c.at(), x.match.String()))
		}
		return err
	case nil:
		if c.deleting() || a.filtering {
			return nil
		}
		return c.fail(errorf(ErrNoMatch, "no item of %s matches %s: the list does not exist", c.at(), x.match.String()))
	}
	return c.fail(errorf(ErrType, "%s is %s; a selector needs a list", c.at(), describeValue(cur)))
}

// allStep is every item of a list: *, [*].
type allStep struct{ col int }

func (x *allStep) column() int { return x.col }

func (x *allStep) write(b *strings.Builder, _ bool) { b.WriteString("[*]") }

func (x *allStep) listTokens(out []listToken) []listToken {
	return append(out, listToken{kind: 'a'})
}

func (x *allStep) resolve(w typeWalk, n *typeNode) (typed, *problem) {
	return resolveListStep(w, n, x, nil)
}

func (x *allStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	switch v := cur.(type) {
	case []any:
		_, err := a.applyItems(s, v, c, nil)
		return err
	case nil:
		return nil
	}
	return c.fail(errorf(ErrType, "%s is %s; a selector needs a list", c.at(), describeValue(cur)))
}

// applyItems performs the steps after c on every item of list that m
// selects (every item when m is nil). found reports whether one was.
func (a *applier) applyItems(s slot, list []any, c cursor, m *match) (found bool, err *problem) {
	a.meter.count(len(list), 0)
	var l []any
	for j := range list {
		if m != nil && !m.matches(list[j]) {
			continue
		}
		found = true
		in, held, err := c.enter(a, j, list[j])
		if err != nil {
			return true, err
		}
		if !held {
			continue
		}
		if l == nil {
			l = a.writableList(s, list)
		}
		if err := in.next(a, slot{l: l, idx: j}); err != nil {
			return true, err
		}
	}
	return found, nil
}

// resolveListStep checks a step that needs a list, and the key of its
// selector m (nil without one) against the items' type.
func resolveListStep(w typeWalk, n *typeNode, st step, m *match) (typed, *problem) {
	if n.kind != tList {
		return typed{}, errorf(ErrType, "%s is %s; %s needs a list", w.at(), n.describe(), stepText(st))
	}
	if m != nil {
		if err := checkSelectorKey(n.elem, m.key); err != nil {
			return typed{}, err
		}
	}
	return typed{step: st, node: n.elem}, nil
}
