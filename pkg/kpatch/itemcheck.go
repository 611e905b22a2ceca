package kpatch

import (
	"kpatch.dev/kpatch/pkg/condition"
)

// The checks of item against the type of the items it is: on a built-in
// kind, ${item.PATH} and a condition's item.PATH must name fields the
// items can hold, as an entry's path must (a field the schema does not
// have never reaches the object: the API server drops it).

// itemNode is the type of the items that the step walk of steps walks,
// below root; nil when no schema says.
func itemNode(root *typeNode, steps []step, walk int) *typeNode {
	if root == nil || walk < 0 {
		return nil
	}
	n := customLeaf(root, steps[:walk])
	if n == nil || n.kind == tAny {
		return nil
	}
	return listItem(n)
}

// checkItemPath checks the fields of path below item, of type n (nil:
// unchecked).
func checkItemPath(n *typeNode, path []string) *problem {
	for i, name := range path {
		if n == nil || n.kind == tAny {
			return nil
		}
		switch n.kind {
		case tStruct:
			f := n.fields[name]
			if f == nil {
				if i == 0 {
					return unknownField(name, fieldNames(n), "the items (%s) have no field %q", n.name, name)
				}
				return unknownField(name, fieldNames(n), "%s (%s) has no field %q", itemPathText(path[:i]), n.name, name)
			}
			n = f
		case tMap:
			n = n.elem
		default:
			return errorf(ErrType, "%s is %s; it has no field %q", itemPathText(path[:i]), n.describe(), name)
		}
	}
	return nil
}

// checkItemValue checks the ${item.PATH} of v against n, the type of the
// items they read; the problem is at the value (col).
func (pl *plan) checkItemValue(v *Value, n *typeNode, col int) {
	if n == nil || pl.err != nil {
		return
	}
	check := func(r *VarRef) {
		if r.IsItem() && pl.err == nil {
			if err := checkItemPath(n, r.Path); err != nil {
				err.msg = r.String() + ": " + err.msg
				pl.fail(col, err)
			}
		}
	}
	for _, part := range v.Parts {
		if part.Var != nil {
			check(part.Var)
		}
	}
	if v.Tree != nil {
		anyTreeRef(v.Tree, func(r *VarRef) bool { check(r); return false })
	}
}

// checkItemSelections checks the fields of item a section's condition c
// selects against the types of the items its header walks in the
// section's kinds: a field none of them has is an error, at the reading
// of item in the expression.
func checkItemSelections(w *When, c *condition.Condition, cs *section) *ParseError {
	if len(cs.ops) == 0 {
		return nil
	}
	op := cs.ops[0]
	for _, sel := range c.ItemSelections() {
		var first *problem
		known := false
		for i, pl := range op.schemas {
			if pl.err != nil {
				continue
			}
			n := itemNode(cs.kinds[i].root, pl.steps, pl.headerWalk())
			if err := checkItemPath(n, sel.Path); err == nil {
				known = true
				break
			} else if first == nil {
				first = err
			}
		}
		if !known && first != nil {
			return &ParseError{Pos: w.position(sel.Line, sel.Column), Err: first.err, Msg: "when: " + first.text()}
		}
	}
	return nil
}
