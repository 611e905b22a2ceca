package parameters

import (
	"math"
	"regexp"
	"strconv"

	"kpatch.dev/kpatch/pkg/variables"
)

// accept converts a typed value (from a YAML file or --set) to the type t:
// integers are int64, numbers float64. A number with no fraction is an
// integer, as in JSON.
func (t Type) accept(v any) (any, *problem) {
	n, ok := normalize(v)
	if !ok {
		return nil, problemf(ErrType, "%v cannot be held in a Kubernetes object", v)
	}
	switch t {
	case String:
		if _, ok := n.(string); ok {
			return n, nil
		}
	case Boolean:
		if _, ok := n.(bool); ok {
			return n, nil
		}
	case Integer:
		switch x := n.(type) {
		case int64:
			return x, nil
		case float64:
			if x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63 {
				return int64(x), nil
			}
		}
	case Number:
		switch x := n.(type) {
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		}
	case Array:
		if _, ok := n.([]any); ok {
			return n, nil
		}
	case Object:
		if _, ok := n.(map[string]any); ok {
			return n, nil
		}
	}
	msg := "expected " + t.article() + ", got " + describe(n)
	switch {
	case t == String && n != nil:
		msg += "; quote it to make it text"
	case t == Boolean:
		msg += "; write true or false"
	}
	return nil, problemf(ErrType, "%s", msg)
}

var decimalRE = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// textOf is the text a scalar converted from text keeps, when it prints
// otherwise (variables.NeedsText).
func textOf(s string, v any) any {
	if variables.NeedsText(s, v) {
		return s
	}
	return nil
}

// fromText converts text (an annotation, --set-string) to the type t:
// integers in base 10, numbers in decimal notation, booleans as in a YAML
// file, arrays and objects as YAML or JSON. It returns the value and the
// texts of its scalars (the text itself for a scalar).
func (t Type) fromText(s string) (any, any, *problem) {
	switch t {
	case String:
		return s, nil, nil
	case Integer:
		n, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			return n, textOf(s, n), nil
		}
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return nil, nil, problemf(ErrType, "integer %s is out of range", quoteText(s))
		}
	case Number:
		if decimalRE.MatchString(s) {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsInf(f, 0) {
				return nil, nil, problemf(ErrType, "number %s is out of range", quoteText(s))
			}
			return f, textOf(s, f), nil
		}
	case Boolean:
		if b, ok := yamlBools[s]; ok {
			return b, textOf(s, b), nil
		}
	case Array, Object:
		v, texts, p := parseYAMLText(s)
		if p != nil {
			return nil, nil, problemf(ErrType, "expected %s as YAML or JSON: %s", t.article(), p.msg)
		}
		v, p = t.accept(v)
		return v, texts, p
	}
	return nil, nil, problemf(ErrType, "expected %s, got the text %s", t.article(), quoteText(s))
}
