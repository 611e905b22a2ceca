package kpatch

// lookupWhole reads the variable of a value that is exactly one variable:
// it takes the variable's type, and a map or list (an object or array
// parameter) is substituted whole, as a copy that the object may own.
// Its size counts against ex.
func lookupWhole(v *Variables, ref *VarRef, ex *expansion) (any, *problem) {
	if !ref.IsBuiltin() {
		if val, ok := lookupNode(v, ref); ok {
			node, size := copyNode(val)
			return node, ex.take(size)
		}
	}
	val, err := lookup(v, ref)
	if err != nil {
		return nil, err
	}
	text, _ := scalarText(val)
	return val, ex.take(len(text))
}

// lookupNode returns a value's map or list, if the variable holds one.
func lookupNode(v *Variables, ref *VarRef) (any, bool) {
	if v == nil || ref.Scope != "values" {
		return nil, false
	}
	val, ok := lookupPath(v.Values, ref.Path)
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

// copyNode deep-copies a map or list of variables, so that the object
// never shares containers with them, and returns the bytes its keys and
// scalars take as text.
func copyNode(v any) (any, int) {
	switch x := v.(type) {
	case map[string]any:
		out, size := make(map[string]any, len(x)), 0
		for k, e := range x {
			c, n := copyNode(e)
			out[k], size = c, size+len(k)+n
		}
		return out, size
	case []any:
		out, size := make([]any, len(x)), 0
		for i, e := range x {
			c, n := copyNode(e)
			out[i], size = c, size+n
		}
		return out, size
	}
	text, _ := scalarText(v)
	return v, len(text)
}
