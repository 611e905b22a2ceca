package listalign

import (
	"encoding/json"
	"math"
	"strconv"
)

// ScalarText returns a scalar as the text a selector compares it by; ok
// is false for maps, lists and null.
func ScalarText(v any) (string, bool) {
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
