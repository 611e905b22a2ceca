package admission

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
)

// createPatch returns the RFC 6902 patch from orig to patched: the
// operations jsonpatch.CreatePatch computes between the two documents
// (TestCreatePatchMatchesJSONPatch holds it to that). kpatch.Apply shares
// every unchanged map and list of its result with its input, so this walk,
// which follows jsonpatch's own over objects and arrays, skips identical
// subtrees without looking inside them and hands the values that differ to
// jsonpatch.CreatePatch, instead of marshalling the whole object and
// decoding it twice.
func createPatch(orig, patched map[string]any) ([]jsonpatch.Operation, error) {
	return diffMaps(orig, patched, make([]byte, 0, 128), nil)
}

// The walk builds the JSON pointer of where it is in one buffer, path,
// which each level extends for its children; a pointer becomes a string
// only in an operation.

// child is path extended by a map key.
func child(path []byte, key string) []byte {
	return appendPointerToken(append(path, '/'), key)
}

// item is path extended by a list index.
func item(path []byte, i int) []byte {
	return strconv.AppendInt(append(path, '/'), int64(i), 10)
}

// diffMaps follows jsonpatch's own walk over objects: added keys are
// added, removed keys removed, common keys compared.
func diffMaps(a, b map[string]any, path []byte, ops []jsonpatch.Operation) ([]jsonpatch.Operation, error) {
	if sameContainer(a, b) {
		return ops, nil
	}
	var err error
	for key, bv := range b {
		av, ok := a[key]
		if !ok {
			ops = append(ops, jsonpatch.NewOperation("add", string(child(path, key)), bv))
			continue
		}
		if identical(av, bv) {
			continue
		}
		if ops, err = diffValues(av, bv, child(path, key), ops); err != nil {
			return nil, err
		}
	}
	for key := range a {
		if _, ok := b[key]; !ok {
			ops = append(ops, jsonpatch.NewOperation("remove", string(child(path, key)), nil))
		}
	}
	return ops, nil
}

func diffValues(a, b any, path []byte, ops []jsonpatch.Operation) ([]jsonpatch.Operation, error) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			return diffMaps(av, bv, path, ops)
		}
	case []any:
		if bv, ok := b.([]any); ok {
			return diffLists(av, bv, path, ops)
		}
	case string, bool, int64, float64, nil:
		if scalar(b) {
			// jsonpatch replaces a scalar that changed, type or value
			if !sameScalar(a, b) {
				ops = append(ops, jsonpatch.NewOperation("replace", string(path), b))
			}
			return ops, nil
		}
	}
	// A container meets something else: jsonpatch diffs them.
	ja, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	jb, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	sub, err := jsonpatch.CreatePatch(ja, jb)
	if err != nil {
		return nil, err
	}
	for _, op := range sub {
		op.Path = string(path) + op.Path
		ops = append(ops, op)
	}
	return ops, nil
}

// diffLists follows jsonpatch's own walk over arrays: items past the end
// of the shorter list are removed (last first) or added, and the items the
// two lists share by index are compared.
func diffLists(a, b []any, path []byte, ops []jsonpatch.Operation) ([]jsonpatch.Operation, error) {
	if sameContainer(a, b) {
		return ops, nil
	}
	n := min(len(a), len(b))
	for i := len(a) - 1; i >= n; i-- {
		ops = append(ops, jsonpatch.NewOperation("remove", string(item(path, i)), nil))
	}
	for i := n; i < len(b); i++ {
		ops = append(ops, jsonpatch.NewOperation("add", string(item(path, i)), b[i]))
	}
	var err error
	for i := range n {
		if identical(a[i], b[i]) {
			continue
		}
		if ops, err = diffValues(a[i], b[i], item(path, i), ops); err != nil {
			return nil, err
		}
	}
	return ops, nil
}

// identical reports whether two values are the same container or equal
// scalars: the subtrees the engine left alone, which the walk skips
// without building their paths.
func identical(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && sameContainer(x, y)
	case []any:
		y, ok := b.([]any)
		return ok && sameContainer(x, y)
	}
	return scalar(a) && scalar(b) && sameScalar(a, b)
}

func scalar(v any) bool {
	switch v.(type) {
	case string, bool, int64, float64, nil:
		return true
	}
	return false
}

// sameScalar compares two scalars as JSON does: numbers by value.
func sameScalar(a, b any) bool {
	if a == b {
		return true
	}
	switch x := a.(type) {
	case int64:
		y, ok := b.(float64)
		return ok && float64(x) == y
	case float64:
		y, ok := b.(int64)
		return ok && x == float64(y)
	}
	return false
}

// sameContainer reports whether two maps or two lists are the same one.
func sameContainer(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Len() != vb.Len() {
		return false
	}
	return va.Len() == 0 || va.UnsafePointer() == vb.UnsafePointer()
}

// appendPointerToken appends a key escaped for a JSON pointer (RFC 6901).
func appendPointerToken(b []byte, key string) []byte {
	if !strings.ContainsAny(key, "~/") {
		return append(b, key...)
	}
	for i := range len(key) {
		switch key[i] {
		case '~':
			b = append(b, '~', '0')
		case '/':
			b = append(b, '~', '1')
		default:
			b = append(b, key[i])
		}
	}
	return b
}

// jsonPatch is the encoded JSONPatch from orig to patched, nil when they
// are equal.
func jsonPatch(orig, patched map[string]any) ([]byte, error) {
	if sameContainer(orig, patched) {
		return nil, nil
	}
	ops, err := createPatch(orig, patched)
	if err != nil || len(ops) == 0 {
		return nil, err
	}
	return encodePatch(ops)
}

// encodePatch writes operations as the JSON array of RFC 6902 into one
// buffer, each value encoded once as encoding/json would (sorted keys;
// jsonpatch's own MarshalJSON marshals every operation twice over).
func encodePatch(ops []jsonpatch.Operation) ([]byte, error) {
	b := make([]byte, 0, 64*len(ops))
	b = append(b, '[')
	for i, op := range ops {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"op":"`...)
		b = append(b, op.Operation...)
		b = appendString(append(b, `","path":`...), op.Path)
		if op.Operation != "remove" {
			var err error
			if b, err = appendJSON(append(b, `,"value":`...), op.Value); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}
