package kpatch

import "kpatch.dev/kpatch/pkg/variables"

// sourced is a variable's scalar with the text its values file wrote it
// as (1.0, 010, yes, ~; Variables.Texts): a string field receives the
// text, any other field the value. It lives only between a variable's
// lookup and the conversion to the field's type (coerce, coerceTree),
// which unwrap it; a value with no type to convert to is unwrapped whole
// by plainValue.
type sourced struct {
	value any
	text  string
}

// sourcedScalar wraps a variable's scalar with its text, when the
// variables know one that still denotes the value.
func sourcedScalar(v *Variables, ref *VarRef, val any) any {
	if text, ok := v.TextOf(ref.Scope, ref.Path, val); ok {
		return sourced{val, text}
	}
	return val
}

// unwrapSourced returns the value v gives a field of type n, and the
// text it was written as (raw for a v that is no sourced): a string field
// receives the text (a null's too), a field without a type the text of a
// splice (text, as written) and the value of anything else, any other
// field the value, as YAML read it or as a splice printed it.
func unwrapSourced(v any, raw string, n *typeNode) (any, string) {
	s, ok := v.(sourced)
	if !ok {
		return v, raw
	}
	_, splice := s.value.(string)
	if n != nil && n.kind == tString || splice && (n == nil || n.kind == tAny) {
		return s.text, s.text
	}
	return s.value, s.text
}

// plainValue unwraps every sourced scalar of a value built by expanding
// variables, for a place without a type (whose maps and lists the
// expansion made, and which it therefore changes in place): a splice is
// its text as written, a variable's scalar its value.
func plainValue(v any) any {
	switch x := v.(type) {
	case sourced:
		u, _ := unwrapSourced(x, "", nil)
		return u
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(sourced); ok {
				x[k], _ = unwrapSourced(s, "", nil)
			} else if isNode(e) {
				plainValue(e)
			}
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(sourced); ok {
				x[i], _ = unwrapSourced(s, "", nil)
			} else if isNode(e) {
				plainValue(e)
			}
		}
	}
	return v
}

// holdsSourced reports whether a value built by expanding variables
// holds a sourced scalar.
func holdsSourced(v any) bool {
	return anyLeaf(v, func(leaf any) bool {
		_, ok := leaf.(sourced)
		return ok
	})
}

// printedValue is a value as it prints: a sourced's value (a splice as
// the values printed, for what reads a value's truth: enabled:).
func printedValue(v any) any {
	if s, ok := v.(sourced); ok {
		return s.value
	}
	return v
}

// copySourced deep-copies a map or list of variables as copyNode does,
// wrapping each scalar that texts (the variable's mirror) gives a text
// for.
func copySourced(v any, texts any) (any, int) {
	switch x := v.(type) {
	case map[string]any:
		tm, _ := texts.(map[string]any)
		out, size := make(map[string]any, len(x)), 0
		for k, e := range x {
			c, n := copySourced(e, tm[k])
			out[k], size = c, size+len(k)+n
		}
		return out, size
	case []any:
		tl, _ := texts.([]any)
		out, size := make([]any, len(x)), 0
		for i, e := range x {
			var t any
			if i < len(tl) {
				t = tl[i]
			}
			c, n := copySourced(e, t)
			out[i], size = c, size+n
		}
		return out, size
	}
	if text, ok := texts.(string); ok && variables.Denotes(text, v) {
		return sourced{v, text}, len(text)
	}
	text, _ := scalarText(v)
	return v, len(text)
}
