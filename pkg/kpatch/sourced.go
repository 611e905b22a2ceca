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

// spliceText is the text a variable's scalar puts into a text:
// the text it was written as, if known, else the value printed.
func spliceText(v *Variables, ref *VarRef, val any) string {
	if text, ok := v.TextOf(ref.Scope, ref.Path, val); ok && val != nil {
		return text
	}
	text, _ := scalarText(val)
	return text
}

// unwrapSourced returns a value and the text it was written as ("" for
// one without); a null keeps its text only for a string field, where
// stringField says so.
func unwrapSourced(v any, raw string, stringField bool) (any, string) {
	s, ok := v.(sourced)
	if !ok {
		return v, raw
	}
	if s.value == nil && stringField {
		return s.text, s.text
	}
	return s.value, s.text
}

// plainValue unwraps every sourced scalar of a value built by expanding
// variables (whose maps and lists the expansion made, and which it
// therefore changes in place).
func plainValue(v any) any {
	switch x := v.(type) {
	case sourced:
		return x.value
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(sourced); ok {
				x[k] = s.value
			} else if isNode(e) {
				plainValue(e)
			}
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(sourced); ok {
				x[i] = s.value
			} else if isNode(e) {
				plainValue(e)
			}
		}
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
