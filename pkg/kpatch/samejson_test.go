package kpatch

import "testing"

// TestSameJSON: equal by value, numbers across int64 and float64, and
// shared maps and lists without looking inside.
func TestSameJSON(t *testing.T) {
	shared := map[string]any{"a": []any{int64(1), "x"}}
	for _, c := range []struct {
		a, b any
		want bool
	}{
		{shared, shared, true},
		{map[string]any{"s": shared}, map[string]any{"s": shared}, true},
		{map[string]any{"n": int64(3)}, map[string]any{"n": float64(3)}, true},
		{map[string]any{"n": int64(3)}, map[string]any{"n": int64(4)}, false},
		{map[string]any{"n": int64(3)}, map[string]any{"m": int64(3)}, false},
		{[]any{"a", nil}, []any{"a", nil}, true},
		{[]any{"a"}, []any{"a", "b"}, false},
		{[]any{map[string]any{}}, []any{[]any{}}, false},
		{"x", map[string]any{}, false},
	} {
		if got := SameJSON(c.a, c.b); got != c.want {
			t.Errorf("SameJSON(%v, %v) = %v", c.a, c.b, got)
		}
	}
}
