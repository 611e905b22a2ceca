package kpatch

import (
	"strings"

	"kpatch.dev/kpatch/pkg/condition"
)

// sectionCondition compiles the condition of the section s, compiled as
// cs: a condition that reads item when the header walks list items
// (walksItems), evaluated per item (item.go); any other as the section's.
// item reports the former.
func sectionCondition(s *Section, cs *section) (c *condition.Condition, item bool, err *ParseError) {
	opts := condition.Options{Workload: s.Target.isWorkloadSet()}
	plans := cs.walkingPlans()
	if len(plans) == 0 {
		c, err = s.When.compile(opts)
		return c, false, err
	}
	withItem := opts
	withItem.Item, withItem.ItemPaths = true, itemPaths(plans)
	c, err = s.When.compile(withItem)
	if err == nil && c.ReadsItem() {
		err = checkItemSelections(s.When, c, cs)
	}
	if err != nil || c.ReadsItem() {
		return c, err == nil, err
	}
	c, err = s.When.compile(opts) // no item: the section's condition, within the per-call limit
	return c, false, err
}

// walkingPlans are the plans of the section's first operation (they
// share the header) whose header walks items; none when the header
// walks none.
func (cs *section) walkingPlans() []*plan {
	if len(cs.ops) == 0 {
		return nil
	}
	var out []*plan
	op := cs.ops[0]
	for _, pl := range append(op.schemas[:len(op.schemas):len(op.schemas)], op.generic) {
		if pl != nil && pl.err == nil && pl.headerWalk() >= 0 {
			out = append(out, pl)
		}
	}
	return out
}

// itemPaths are where the items the plans' headers walk are in the
// object, for the cost estimate (condition.Options.ItemPaths): field
// names, and @items for a list's items.
func itemPaths(plans []*plan) [][]string {
	var out [][]string
	seen := map[string]bool{}
	for _, pl := range plans {
		if !pl.typed {
			continue
		}
		for _, p := range stepsPaths(pl.steps[:pl.headerWalk()+1]) {
			if key := strings.Join(p, "\x00"); !seen[key] {
				seen[key] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// stepsPaths are the object paths that steps, ending at a walk, go
// through: one per list allContainers stands for.
func stepsPaths(steps []step) [][]string {
	paths := [][]string{nil}
	add := func(names ...string) {
		for i := range paths {
			paths[i] = append(paths[i], names...)
		}
	}
	for i, st := range steps {
		last := i == len(steps)-1
		switch x := st.(type) {
		case *fieldStep:
			if last {
				add("@items") // the items of allContainers
			} else {
				add(x.name)
			}
		case itemsFieldStep:
			if last {
				add("@items")
			} else {
				add("@items", x.name)
			}
		case keyStep:
			add(x.text)
		case *allContainersStep:
			var lists [][]string
			for _, p := range paths {
				for _, name := range x.lists() {
					lists = append(lists, append(append([]string(nil), p...), name))
				}
			}
			paths = lists
		default:
			add("@items")
		}
	}
	return paths
}

// attachItemCondition makes c the per-item condition of the plans of
// the section cs: each evaluates it at its header's innermost walk.
func (cs *section) attachItemCondition(c *Condition) {
	for _, op := range cs.ops {
		for _, pl := range append(op.schemas[:len(op.schemas):len(op.schemas)], op.generic) {
			if pl == nil || pl.err != nil {
				continue
			}
			if w := pl.headerWalk(); w >= 0 {
				u := pl.useItems()
				u.when, u.whenStep = c, w
			}
		}
	}
}
