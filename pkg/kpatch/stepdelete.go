package kpatch

import "strings"

// deleteItemsStep removes the items of a list it selects: [delete=N],
// [delete=k=v], and what X[k=v][delete] and X[*][delete] compile to.
type deleteItemsStep struct {
	index int
	match *match // by match; nil by index
	every bool   // every item
	col   int
}

func (x *deleteItemsStep) column() int { return x.col }

func (x *deleteItemsStep) write(b *strings.Builder, _ bool) {
	if x.every {
		b.WriteString("[*][delete]")
		return
	}
	sel := ""
	if x.match != nil {
		sel = x.match.String()
	}
	b.WriteString(deleteItemsText(x.index, sel))
}

func (x *deleteItemsStep) listTokens(out []listToken) []listToken { return out }

func (x *deleteItemsStep) resolve(w typeWalk, n *typeNode) (typed, *problem) {
	return resolveListStep(w, n, x, x.match)
}

// selects reports whether the step removes the item j of a list.
func (x *deleteItemsStep) selects(j int, item any) bool {
	switch {
	case x.every:
		return true
	case x.match != nil:
		return x.match.matches(item)
	}
	return j == x.index
}

func (x *deleteItemsStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	switch v := cur.(type) {
	case []any:
		if c.pl.itemWhen() != nil && c.i == c.pl.items.whenStep {
			return x.removeWhere(a, s, v, c)
		}
		return a.removeItems(s, v, func(j int) bool { return x.selects(j, v[j]) })
	case nil:
		return nil
	}
	return c.fail(errorf(ErrType, "%s is %s; %s needs a list", c.at(), describeValue(cur), stepText(x)))
}

// removeItems replaces the list in s with a copy without the items that
// remove selects, if there are any.
func (a *applier) removeItems(s slot, list []any, remove func(j int) bool) *problem {
	a.meter.count(2*len(list), 0)
	n := 0
	for j := range list {
		if !remove(j) {
			n++
		}
	}
	if n == len(list) {
		return nil
	}
	out := make([]any, 0, n)
	for j := range list {
		if !remove(j) {
			out = append(out, list[j])
		}
	}
	a.own(listPointer(out))
	a.set(s, out)
	return nil
}

// removeWhere removes the items of list the step selects and for which
// the section's per-item condition holds.
func (x *deleteItemsStep) removeWhere(a *applier, s slot, list []any, c cursor) *problem {
	remove := make([]bool, len(list))
	for j, item := range list {
		if !x.selects(j, item) {
			continue
		}
		_, held, err := c.enter(a, j, item)
		if err != nil {
			return err
		}
		remove[j] = held
	}
	return a.removeItems(s, list, func(j int) bool { return remove[j] })
}
