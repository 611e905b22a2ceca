package parameters

import (
	"math"
	"strings"
)

// Type is a parameter's declared type.
type Type string

// The types of parameters. A Boolean parameter is a feature.
const (
	String  Type = "string"
	Integer Type = "integer"
	Number  Type = "number"
	Boolean Type = "boolean"
	Array   Type = "array"
	Object  Type = "object"
)

var types = []Type{String, Integer, Number, Boolean, Array, Object}

func typeNames() string {
	s := make([]string, len(types))
	for i, t := range types {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

func knownType(t string) bool {
	for _, k := range types {
		if string(k) == t {
			return true
		}
	}
	return false
}

// Scope is where a parameter of the type is set and read:
// "features" for booleans, "values" for every other type.
func (t Type) Scope() string {
	if t == Boolean {
		return "features"
	}
	return "values"
}

// article returns the type with its indefinite article, for messages.
func (t Type) article() string {
	switch t {
	case Integer, Array, Object:
		return "an " + string(t)
	}
	return "a " + string(t)
}

// describe names a value's type and the value, for messages: `the string
// "abc"`, `the number 1.5`, `a map`.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "the string " + quoteText(x)
	case bool:
		return "the boolean " + formatScalar(x)
	case int64, float64:
		return "the number " + formatScalar(x)
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return "an unsupported value"
}

// quoteText quotes a string for a message, cut to a readable length.
func quoteText(s string) string {
	const max = 64
	if len(s) > max {
		s = s[:max] + "..."
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// normalize converts Go numbers to int64 and float64, and copies maps and
// lists deeply, so that a value held by a Values or a Variables is never
// shared with its caller. ok is false for a value that has no place in a
// Kubernetes object (NaN, infinity, other Go types).
func normalize(v any) (any, bool) {
	switch x := v.(type) {
	case nil, string, bool, int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return nil, false
		}
		return int64(x), true
	case float32:
		return normalize(float64(x))
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var ok bool
			if out[i], ok = normalize(e); !ok {
				return nil, false
			}
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, ok := normalize(e)
			if !ok {
				return nil, false
			}
			out[k] = n
		}
		return out, true
	}
	return nil, false
}
