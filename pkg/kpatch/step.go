package kpatch

import (
	"strconv"
	"strings"
)

// step is one step of a compiled plan's path. Each operation of the
// format is one implementation of it, which knows how it is checked
// against a schema, how it is performed on an object and how it is
// written. Steps are immutable: the plans of a kind's API versions share
// them, and resolving a step against a schema gives a new one.
type step interface {
	// resolve checks the step against the type n of the value it meets.
	resolve(w typeWalk, n *typeNode) (typed, *problem)
	// apply performs the step, and through c the steps after it, on the
	// value cur held in s.
	apply(a *applier, s slot, cur any, c cursor) *problem
	// write prints the step as a path segment; first is whether it
	// starts the path.
	write(b *strings.Builder, first bool)
	// listTokens appends how the step goes through list items, which the
	// idempotence checks compare.
	listTokens(out []listToken) []listToken
	// column is where the step is written in an entry's key; 0 for a
	// header's step or a shorthand's prefix, whose problems are reported
	// at the entry.
	column() int
}

// newStep compiles one segment of a path; col is the column its problems
// are reported at. [delete] is no step but the plan's action: nil.
func newStep(seg *Segment, col int) step {
	switch seg.Kind {
	case Field:
		if seg.Bracketed && strings.Contains(seg.Name, "${") {
			return keyWithVariables(seg.Name, col)
		}
		return &fieldStep{name: seg.Name, bracketed: seg.Bracketed, col: col}
	case Index:
		return &indexStep{index: seg.Index, text: seg.Name, col: col}
	case Select:
		return &selectStep{match: match{key: seg.Key, value: seg.Value}, col: col}
	case All:
		return &allStep{col: col}
	case Append, InsertBefore, InsertAfter:
		return &insertStep{kind: seg.Kind, index: seg.Index, last: seg.Last, match: segmentMatch(seg), col: col}
	case DeleteItems:
		return &deleteItemsStep{index: seg.Index, every: seg.Last, match: segmentMatch(seg), col: col}
	}
	return nil
}

// segmentMatch is the selector of an insertion or a DeleteItems by match.
func segmentMatch(seg *Segment) *match {
	if !seg.ByMatch {
		return nil
	}
	return &match{key: seg.Key, value: seg.Value}
}

// cursor is where a plan's walk over an object is: the plan, the index
// of the step being performed, the value to set and the variables.
type cursor struct {
	pl   *plan
	i    int
	val  any
	vars *Variables
	// bindItem says that the plan reads ${item}: entering an item binds
	// it to vars (cursor.enter).
	bindItem bool
	// pos is where the walk is among the items of a plan with a per-item
	// condition: the positions of the items entered, varint-encoded.
	pos string
}

// startCursor is the cursor at the first step of pl, whose value is val
// (nil until an item resolves it: item.go).
//
// Where vars hold an item already (a foreach element), the walk binds
// none: item is the element.
func startCursor(pl *plan, val any, vars *Variables) cursor {
	return cursor{pl: pl, val: val, vars: vars, bindItem: pl.readsItem() && (vars == nil || !vars.HasItem)}
}

// next performs the steps after the cursor's on the value in s.
func (c cursor) next(a *applier, s slot) *problem {
	c.i++
	return a.walk(s, c)
}

// again performs the cursor's step on the value in s: an item of the
// list the step met.
func (c cursor) again(a *applier, s slot) *problem { return a.walk(s, c) }

// last reports whether the cursor's step ends the path.
func (c cursor) last() bool { return c.i == len(c.pl.steps)-1 }

// deleting reports whether the plan deletes what its path reaches.
func (c cursor) deleting() bool { return c.pl.act == actDelete }

// fail places a problem at the cursor's step.
func (c cursor) fail(err *problem) *problem { return err.at(c.pl.line, c.pl.stepCol(c.i)) }

// at is the path before the cursor's step, for messages.
func (c cursor) at() string { return pathText(c.pl.steps[:c.i]) }

// pathText prints steps as a path.
func pathText(steps []step) string {
	var b strings.Builder
	for i, st := range steps {
		st.write(&b, i == 0)
	}
	return b.String()
}

// stepText prints one step as a path.
func stepText(st step) string { return pathText([]step{st}) }

// match selects the list items whose field at key equals value as text.
type match struct {
	key   []string
	value string
}

// matches reports whether a list item's field at m.key equals m.value as
// text.
func (m *match) matches(item any) bool {
	v := item
	for _, k := range m.key {
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = obj[k]; !ok {
			return false
		}
	}
	return textEquals(v, m.value)
}

// String prints the selector as key="value".
func (m *match) String() string { return selectorText(m.key, m.value) }

// writeBare writes a bare segment, after a '.' unless it starts the path.
func writeBare(b *strings.Builder, text string, first bool) {
	if !first {
		b.WriteByte('.')
	}
	b.WriteString(text)
}

// writeField writes a field: in brackets when it was bracketed or holds
// a dot and brackets can hold it, else bare and escaped.
func writeField(b *strings.Builder, name string, bracketed, first bool) {
	if (bracketed || strings.Contains(name, ".")) && !strings.ContainsAny(name, `=[]"\`) && !isBracketWord(name) {
		b.WriteString("[" + name + "]")
		return
	}
	writeBare(b, escapeBare(name), first)
}

// insertionText prints an insertion of kind Append, InsertBefore or
// InsertAfter; sel is its selector's text, "" for one by index.
func insertionText(kind SegmentKind, last bool, index int, sel string) string {
	sign := "-"
	if kind == InsertAfter {
		sign = "+"
	}
	switch {
	case kind == Append:
		return "[-]"
	case last && kind == InsertAfter:
		return "[+last]"
	case last:
		return "[-len]"
	case sel != "":
		return "[" + sign + sel + "]"
	}
	return "[" + sign + strconv.Itoa(index) + "]"
}

// deleteItemsText prints a [delete=...]; sel is its selector's text, ""
// for one by index.
func deleteItemsText(index int, sel string) string {
	if sel != "" {
		return "[delete=" + sel + "]"
	}
	return "[delete=" + strconv.Itoa(index) + "]"
}
