package kpatch

import (
	"encoding/json"
	"math"
	"strings"
)

// Truthy reports whether a value enables something, by Kure's rule for
// enabled: a boolean is itself; text is true unless it is empty or, in
// any case and without surrounding spaces, false, no, 0 or disabled; a
// number is true unless it is zero (or NaN). Anything else (null, maps,
// lists) is false.
func Truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "", "false", "no", "0", "disabled":
			return false
		}
		return true
	case int:
		return x != 0
	case int32:
		return x != 0
	case int64:
		return x != 0
	case uint32:
		return x != 0
	case uint64:
		return x != 0
	case float32:
		return x != 0 && !math.IsNaN(float64(x))
	case float64:
		return x != 0 && !math.IsNaN(x)
	case json.Number:
		f, err := x.Float64() // an integer beyond 64 bits, every digit kept
		return err != nil || f != 0
	}
	return false
}
