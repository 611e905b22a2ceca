package kpatch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kpatch.dev/kpatch/pkg/variables"
)

// The item mechanism: `item` is the list item an entry applies in, the
// innermost item that its path selects with *, k=v or allContainers (a
// walk: walksItems). While a plan runs, the cursor carries it:
//
//   - a walking step enters each item it selects through cursor.enter,
//     which binds the item to the cursor's variables (${item.PATH} reads
//     it: Variables.WithItem) when the plan reads it, resolves the plan's
//     value at its innermost walk (plan.itemStep), and at the step of the
//     section's per-item condition (plan.whenStep) asks whether the
//     condition holds for the item (applier.itemHolds), once per item and
//     section;
//   - an insertion's new item is never item: the steps that build it are
//     no walk.
//
// itemUse is what a plan does with the items it walks.
type itemUse struct {
	// value says that the plan's value reads ${item}: it is resolved per
	// item at the plan's innermost walk, the step valueStep.
	value     bool
	valueStep int
	// when is the section's condition that reads item, evaluated per
	// item at the step whenStep, the header's innermost walk; nil
	// without one.
	when     *Condition
	whenStep int
}

// itemValue reports whether the plan's value reads ${item}.
func (pl *plan) itemValue() bool { return pl.items != nil && pl.items.value }

// itemWhen is the plan's per-item condition, nil without one.
func (pl *plan) itemWhen() *Condition {
	if pl.items == nil {
		return nil
	}
	return pl.items.when
}

// useItems returns the plan's itemUse, made on first use.
func (pl *plan) useItems() *itemUse {
	if pl.items == nil {
		pl.items = &itemUse{}
	}
	return pl.items
}

// ScopeItem is the scope of ${item} and ${item.PATH}.
const ScopeItem = variables.ScopeItem

// IsItem reports whether the reference reads the list item an entry
// applies in (${item}, ${item.PATH}).
func (r *VarRef) IsItem() bool { return r.Scope == ScopeItem }

// errNoItem is ${item} read where no item is given: Bind checks a file
// before any object is known, and defers such a value to apply.
var errNoItem = fmt.Errorf("%w: item without value", ErrVariable)

// deferredItem reports whether a problem is ${item} read without an item.
func deferredItem(err *problem) bool { return err != nil && errors.Is(err.err, errNoItem) }

// lookupItem reads ${item} or ${item.PATH} from the item bound to v.
func lookupItem(v *Variables, ref *VarRef) (any, *problem) {
	if v == nil || !v.HasItem {
		return nil, errorf(errNoItem, "%s has no value here: the item is known as the file applies", ref)
	}
	val := v.Item
	for i, name := range ref.Path {
		m, ok := val.(map[string]any)
		if !ok {
			return nil, errorf(ErrVariable, "variable %s is not defined: %s is %s, which has no field %q", ref, itemPathText(ref.Path[:i]), describeValue(val), name)
		}
		if val, ok = m[name]; !ok {
			return nil, errorf(ErrVariable, "variable %s is not defined: the item has no %s (write ${cel: has(...)} for a fallback)", ref, strings.Join(ref.Path[:i+1], "."))
		}
	}
	return val, nil
}

// itemPathText names a path below item for messages.
func itemPathText(path []string) string {
	if len(path) == 0 {
		return "the item"
	}
	return "item." + strings.Join(path, ".")
}

// readsItem reports whether a value reads ${item}.
func (v *Value) readsItem() bool {
	for _, part := range v.Parts {
		if part.Var != nil && (part.Var.IsItem() || part.Var.CEL != nil && part.Var.CEL.readsItem()) {
			return true
		}
	}
	return v.Tree != nil && treeReadsItem(v.Tree)
}

// treeReadsItem reports whether a map or list value's strings read
// ${item}.
func treeReadsItem(tree any) bool { return anyTreeRef(tree, (*VarRef).IsItem) }

// anyTreeRef reports whether a variable of the strings of tree
// satisfies f (the variables References finds there).
func anyTreeRef(tree any, f func(*VarRef) bool) bool {
	return slices.ContainsFunc(appendTreeReferences(nil, tree, Position{}), func(r Reference) bool { return f(r.Var) })
}

// walksItems reports whether the step i of steps enters the existing
// items of a list one by one: *, k=v, the [*][delete] and [k=v][delete]
// of a delete, and the list after allContainers. An index, a field on a
// list and an insertion do not.
func walksItems(steps []step, i int) bool {
	switch x := steps[i].(type) {
	case *allStep, *selectStep:
		return true
	case *deleteItemsStep:
		return x.every || x.match != nil
	case itemsFieldStep, *fieldStep:
		if i > 0 {
			_, after := steps[i-1].(*allContainersStep)
			return after
		}
	}
	return false
}

// innermostWalk is the index of the last step of steps[:n] that walks
// items, -1 for none.
func innermostWalk(steps []step, n int) int {
	for i := min(n, len(steps)) - 1; i >= 0; i-- {
		if walksItems(steps, i) {
			return i
		}
	}
	return -1
}

// headerWalk is the index of the step of pl that walks the innermost
// items of its header (its steps of column 0, the header's and the
// shorthand's; allContainers at the header's end walks at the step after
// it), -1 for none.
func (pl *plan) headerWalk() int {
	n := 0
	for n < len(pl.steps) && pl.steps[n].column() == 0 {
		n++
	}
	if n > 0 && n < len(pl.steps) {
		if _, ok := pl.steps[n-1].(*allContainersStep); ok {
			n++
		}
	}
	return innermostWalk(pl.steps, n)
}

// setItemStep records where the plan's value reads its item: at the
// innermost walk of steps. A value that reads ${item} on a path that
// walks no items fails to compile.
func (pl *plan) setItemStep(v *Value, steps []step) {
	if !v.readsItem() {
		return
	}
	u := pl.useItems()
	u.value = true
	if u.valueStep = innermostWalk(steps, len(steps)); u.valueStep < 0 {
		pl.fail(pl.valueCol, errorf(ErrVariable, "%s reads item, the list item an entry applies in, but %s selects no list items (with *, k=v or allContainers)", v.Raw, pathText(steps)))
	}
}

// itemOfInsertion places the item of an entry that builds an insertion's
// new item (the new item is not item): the item the insertion's path,
// steps, walks, bound before the entry's value is resolved (applyBuild).
// It reports whether the entry reads item.
func (pl *plan) itemOfInsertion(steps []step) bool {
	if !pl.itemValue() {
		return false
	}
	pl.err = nil
	pl.setItemStep(pl.tmpl, steps)
	pl.items = nil
	return true
}

// readsItem reports whether the plan or the entries that build its
// item read ${item}: its cursor then carries the item's variables. Both
// are known when the plan compiles, so a run reads two fields.
func (pl *plan) readsItem() bool { return pl.itemValue() || pl.buildReadsItem }

// enter returns the cursor of the steps after c (or of c's step again,
// for a field on every item) on item, the j-th item of the list c's
// step walks: with item bound where the plan reads it and the plan's
// value resolved at its innermost walk. held is false when the section's
// per-item condition does not hold for the item: the walk leaves it.
func (c cursor) enter(a *applier, j int, item any) (_ cursor, held bool, err *problem) {
	u := c.pl.items
	if u == nil {
		if c.bindItem { // for the entries that build an insertion's item
			c.vars = c.vars.WithItem(item)
		}
		return c, true, nil
	}
	pl := c.pl
	if u.when != nil {
		c.pos = string(binary.AppendUvarint([]byte(c.pos), uint64(j))) // one allocation per item of a conditioned walk
		if c.i == u.whenStep {
			if held, err = a.itemHolds(c, j, item); !held || err != nil {
				return c, false, err
			}
		}
	}
	if c.bindItem {
		c.vars = c.vars.WithItem(item)
	}
	if u.value && c.i == u.valueStep {
		val, err := pl.resolveValue(a.leafOf(pl, a.custom), c.vars, &a.expanded)
		if err != nil {
			return c, false, err.orAt(pl.line, pl.valueCol)
		}
		a.setValueBytes(pl, plainValue(val))
		c.val = val
	}
	return c, true, nil
}

// enterList returns the cursor of the steps after c on the k-th of the
// lists allContainers stands for, whose items a per-item condition tells
// apart from those of another list.
func (c cursor) enterList(k int) cursor {
	if c.pl.itemWhen() != nil {
		c.pos = string(binary.AppendUvarint([]byte(c.pos), uint64(k))) + "/"
	}
	return c
}

// itemHolds reports whether the section's per-item condition holds for
// item, evaluated once per item and section (ApplyOptions.EvalItem).
func (a *applier) itemHolds(c cursor, j int, item any) (bool, *problem) {
	if a.evalItem == nil {
		return true, nil
	}
	if held, ok := a.itemHeld[c.pos]; ok {
		return held, nil
	}
	cond := c.pl.items.when
	where := c.itemText(j, item)
	held, err := a.evalItem(cond, c.vars, item, where)
	if err != nil {
		msg := "when of " + cond.Header + ", item " + where + ": " + err.Error() + "; the file is left out"
		return false, (&problem{err: err, msg: msg}).at(cond.Pos.Line, cond.Pos.Column)
	}
	if a.itemHeld == nil {
		a.itemHeld = map[string]bool{}
	}
	a.itemHeld[c.pos] = held
	return held, nil
}

// itemText names the item the cursor's step walks, for kpatch explain:
// the path to its list, and its name, or its position when it has none.
func (c cursor) itemText(j int, item any) string {
	at := c.at()
	if m, ok := item.(map[string]any); ok {
		if name, ok := m["name"].(string); ok {
			return at + "[name=" + name + "]"
		}
	}
	return at + "[" + strconv.Itoa(j) + "]"
}
