package kpatch

import "kpatch.dev/kpatch/pkg/variables"

// lookupWhole reads the variable of a value that is exactly one variable:
// it takes the variable's type (a scalar carries the text it was written
// as, see sourced), and a map or list (an object or array parameter) is
// substituted whole, as a copy that the object may own. Its size counts
// against ex.
func lookupWhole(v *Variables, ref *VarRef, ex *expansion) (any, *problem) {
	if ref.IsItem() {
		val, err := lookupItem(v, ref)
		if err != nil {
			return nil, err
		}
		node, size := copySourced(val, nil) // the object's: a copy of its own
		return node, ex.take(size)
	}
	if !ref.IsBuiltin() {
		if val, ok := lookupNode(v, ref); ok {
			node, size := copySourced(val, v.TextsAt(ref.Scope, ref.Path))
			return node, ex.take(size)
		}
	}
	val, err := lookup(v, ref)
	if err != nil {
		return nil, err
	}
	text, _ := scalarText(val)
	return sourcedScalar(v, ref, val), ex.take(len(text))
}

// lookupNode returns a value's map or list, if the variable holds one.
func lookupNode(v *Variables, ref *VarRef) (any, bool) {
	if v == nil || ref.Scope != "values" {
		return nil, false
	}
	val, ok := variables.Lookup(v.Values, ref.Path)
	if !ok || !isNode(val) {
		return nil, false
	}
	return val, true
}

// isNode reports whether a value is a map or a list.
func isNode(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}
