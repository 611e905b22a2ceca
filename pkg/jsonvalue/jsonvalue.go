// Package jsonvalue is the values of decoded Kubernetes objects, as a JSON
// or YAML decoder gives them: map[string]any, []any, string, bool, nil and
// numbers (int64 and float64, json.Number for an integer beyond 64 bits).
// It says when two values are equal, copies and merges them, prints a
// scalar as text and decides when a value enables something.
//
// Equality has one rule for numbers, the API server's: a number is the
// value the API server reads from its JSON text, whatever its Go type or
// spelling, so 1, 1.0 and 1e0 are equal.
package jsonvalue

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"
)

// Equal reports whether two decoded values are equal. Maps are equal
// when they hold the same keys with equal values, lists when they hold
// equal items in the same order; maps and lists that are the same in
// memory are equal without a look inside (results of the engine share
// every part they did not change with their input).
//
// Numbers of any Go type (int, int32, int64, uint32, uint64, float32,
// float64, json.Number) compare by value, as the API server reads their
// JSON text: an integer of 64 bits exactly, any other number as the
// nearest float64. So 3, 3.0 and json.Number("3e0") are equal, and so are
// float64(0.1) and json.Number("0.1"); int64(2^53+1) is not equal to
// float64(2^53), whose texts differ. Text and booleans compare as
// themselves, null only with null, and values of other Go types as
// reflect.DeepEqual compares them.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if SameMap(x, y) {
			return true
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if SameList(x, y) {
			return true
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
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
	case int64:
		if y, ok := b.(int64); ok {
			return x == y
		}
	case float64:
		if y, ok := b.(float64); ok {
			return x == y
		}
	}
	return equalOther(a, b)
}

// equalOther compares values of different Go types, or of types other
// than JSON's usual ones: numbers by value, anything else deeply.
func equalOther(a, b any) bool {
	na, nb := IsNumber(a), IsNumber(b)
	switch {
	case na && nb:
		return equalNumber(a, b)
	case na || nb:
		return false
	}
	switch b.(type) {
	case map[string]any, []any, string, bool, nil:
		return false // a is none of these: Equal looked at a first
	}
	return reflect.DeepEqual(a, b)
}

// equalNumber compares two numbers as the API server reads their JSON
// text, by value.
func equalNumber(a, b any) bool {
	ia, fa, inta, oka := apiNumber(a)
	ib, fb, intb, okb := apiNumber(b)
	switch {
	case !oka || !okb:
		na, isa := a.(json.Number)
		nb, isb := b.(json.Number)
		return isa && isb && na == nb // the same text, read or not
	case inta && intb:
		return ia == ib
	case inta:
		return intIsFloat(ia, fb)
	case intb:
		return intIsFloat(ib, fa)
	}
	return fa == fb
}

// apiNumber returns a number as the API server reads its JSON text: an
// int64 (isInt) when the text is an integer of 64 bits, else the nearest
// float64. ok is false for NaN and the infinities, which JSON cannot
// carry, and for a json.Number that is no number or out of range.
func apiNumber(v any) (i int64, f float64, isInt, ok bool) {
	switch x := v.(type) {
	case int:
		return int64(x), 0, true, true
	case int32:
		return int64(x), 0, true, true
	case int64:
		return x, 0, true, true
	case uint32:
		return int64(x), 0, true, true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), 0, true, true
		}
		return 0, float64(x), false, true
	case float32:
		// encoding/json writes a float32 with its own shortest digits,
		// which the API server reads as a float64
		f, err := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return 0, f, false, err == nil
	case float64:
		return 0, x, false, !math.IsNaN(x) && !math.IsInf(x, 0)
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, 0, true, true
		}
		f, err := x.Float64()
		return 0, f, false, err == nil
	}
	return 0, 0, false, false
}

// intIsFloat reports whether the integer i is exactly the float f.
func intIsFloat(i int64, f float64) bool {
	const two63 = 1 << 63
	return f == math.Trunc(f) && f >= -two63 && f < two63 && int64(f) == i
}

// IsNumber reports whether v is a number of one of the Go types Equal
// compares by value.
func IsNumber(v any) bool {
	switch v.(type) {
	case int, int32, int64, uint32, uint64, float32, float64, json.Number:
		return true
	}
	return false
}

// IsScalar reports whether v is a scalar JSON can carry: text, a boolean,
// null or a finite number (an integer of any size as json.Number).
func IsScalar(v any) bool {
	switch x := v.(type) {
	case string, bool, nil, int, int32, int64:
		return true
	case json.Number:
		_, err := strconv.ParseFloat(x.String(), 64)
		return err == nil || errors.Is(err, strconv.ErrRange) && isInteger(x.String())
	}
	f, ok := Float(v)
	return ok && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// isInteger reports whether s is a decimal integer with an optional sign.
func isInteger(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Float returns a number as a float64 (rounded for integers beyond 2^53
// and json.Number); ok is false for anything that is not a number.
func Float(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// MapPointer is the identity of a map: two maps with the same pointer are
// one map.
func MapPointer(m map[string]any) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&m)) }

// ListPointer is the identity of a list's backing array: two lists of one
// length with the same pointer are one list.
func ListPointer(l []any) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(l)) }

// SameMap reports whether a and b are one map, or both empty: equal
// without looking inside (MapPointer).
func SameMap(a, b map[string]any) bool {
	return len(a) == len(b) && (len(a) == 0 || MapPointer(a) == MapPointer(b))
}

// SameList reports whether a and b are one list, or both empty: equal
// without looking inside (ListPointer).
func SameList(a, b []any) bool {
	return len(a) == len(b) && (len(a) == 0 || ListPointer(a) == ListPointer(b))
}

// DeepCopy copies the maps and lists of a value; scalars are shared.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = DeepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopy(e)
		}
		return out
	}
	return v
}

// MergeMaps returns a with b merged in key by key: maps merge, any other
// value of b replaces a's. Neither input is modified; the result shares
// the values it does not merge.
func MergeMaps(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	if out == nil {
		out = make(map[string]any, len(b))
	}
	for k, bv := range b {
		am, aok := out[k].(map[string]any)
		bm, bok := bv.(map[string]any)
		if aok && bok {
			out[k] = MergeMaps(am, bm)
		} else {
			out[k] = bv
		}
	}
	return out
}

// Text formats a scalar as text, the way a selector compares it and a
// template splices it: null is empty, numbers as JSON writes them. ok is
// false for maps and lists.
func Text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case nil:
		return "", true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case float64:
		return FormatFloat(x), true
	case float32:
		return FormatFloat(float64(x)), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

// FormatFloat prints a float as encoding/json does: plain notation, and
// exponent notation below 1e-6 and from 1e21 on (1e-7, 1e+21).
func FormatFloat(f float64) string {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	s := strconv.FormatFloat(f, format, -1, 64)
	if n := len(s); format == 'e' && n >= 4 && s[n-4] == 'e' && s[n-3] == '-' && s[n-2] == '0' {
		s = s[:n-2] + s[n-1:] // e-07 is written e-7
	}
	return s
}

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
