package main

import (
	"encoding/json"
	"math"
	"strconv"
)

// sameValue reports whether two decoded values are equal; numbers compare
// by value whatever their Go type (3 and 3.0 are equal).
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	fa, ok1 := numberValue(a)
	fb, ok2 := numberValue(b)
	return ok1 && ok2 && fa == fb
}

// numberValue returns a decoded number as a float64.
func numberValue(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// scalarText returns a scalar as the text a selector compares it by; ok
// is false for maps, lists and null.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case float64:
		return formatNumber(x), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

// formatNumber prints a float as encoding/json does: 1.5, 3, 1e+21.
func formatNumber(f float64) string {
	b, err := json.Marshal(f)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return string(b)
}
