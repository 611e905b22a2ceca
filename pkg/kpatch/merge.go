package kpatch

import (
	"encoding/json"
	"reflect"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// mergePatch applies a strategic merge patch (kinds with Go types) or a
// JSON merge patch (RFC 7386: the fallback, and type: merge) to the whole
// object. The result replaces the root through the undo log, so the file
// stays atomic.
func (a *applier) mergePatch(m *MergeEntry, ref *ObjectRef, vars *Variables) *problem {
	patch, err := expandTree(m.Patch, vars)
	if err != nil {
		return err
	}
	original := deepCopyValue(a.root).(map[string]any)
	var out map[string]any
	if dataStruct := goTypeOf(ref); m.Strategic && dataStruct != nil {
		res, serr := strategicpatch.StrategicMergeMapPatch(original, deepCopyValue(patch).(map[string]any), dataStruct)
		if serr != nil {
			return errorf(ErrValue, "strategic merge patch: %v", serr)
		}
		out = res
	} else {
		doc, err1 := json.Marshal(original)
		p, err2 := json.Marshal(patch)
		if err1 != nil || err2 != nil {
			return errorf(ErrValue, "JSON merge patch: the object or the patch is not JSON")
		}
		merged, merr := jsonpatch.MergePatch(doc, p)
		if merr != nil {
			return errorf(ErrValue, "JSON merge patch: %v", merr)
		}
		if uerr := utiljson.Unmarshal(merged, &out); uerr != nil || out == nil {
			return errorf(ErrValue, "JSON merge patch: the result is not an object")
		}
	}
	if !equalValue(out, a.root) {
		a.set(slot{}, out)
		a.owned = append(a.owned, mapPointer(out))
	}
	return nil
}

// goTypeOf returns a new value of the Go type of the object's kind and
// version, or nil for kinds without one.
func goTypeOf(ref *ObjectRef) any {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil
	}
	t, ok := scheme.Scheme.AllKnownTypes()[gv.WithKind(ref.Kind)]
	if !ok {
		return nil
	}
	return reflect.New(t).Interface()
}

// treeHasVariables reports whether a structured value holds ${...}.
func treeHasVariables(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, "${")
	case map[string]any:
		for _, e := range x {
			if treeHasVariables(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if treeHasVariables(e) {
				return true
			}
		}
	}
	return false
}

// expandTree returns a copy of a structured value with its variables
// resolved; a string that is exactly one variable takes its type.
func expandTree(v any, vars *Variables) (any, *problem) {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "${") {
			return x, nil
		}
		parts, err := parseTemplate(x, 1)
		if err != nil {
			return nil, errorf(err.err, "%s", err.msg)
		}
		if parts == nil {
			return literalText(x), nil
		}
		t := &Value{Raw: x, Parts: parts}
		return (&plan{tmpl: t}).resolveValue(vars)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := expandTree(e, vars)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := expandTree(e, vars)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// deepCopyValue copies maps and lists; scalars are shared.
func deepCopyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopyValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopyValue(e)
		}
		return out
	}
	return v
}

// coerceTree converts a structured value to the schema below n: the fields
// of a struct must exist, scalars are converted as coerce does.
func coerceTree(v any, n *typeNode) (any, *problem) {
	if n == nil || n.kind == tAny || v == nil {
		return v, nil
	}
	switch x := v.(type) {
	case map[string]any:
		if n.kind != tStruct && n.kind != tMap {
			return nil, errorf(ErrValue, "the field is %s, not a map", n.describe())
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			elem := n.elem
			if n.kind == tStruct {
				if elem = n.fields[k]; elem == nil {
					return nil, errorf(ErrUnknownField, "%s has no field %q", n.name, k)
				}
			}
			r, err := coerceTree(e, elem)
			if err != nil {
				return nil, errorf(err.err, "%s: %s", k, err.msg)
			}
			out[k] = r
		}
		return out, nil
	case []any:
		if n.kind != tList {
			return nil, errorf(ErrValue, "the field is %s, not a list", n.describe())
		}
		out := make([]any, len(x))
		for i, e := range x {
			r, err := coerceTree(e, n.elem)
			if err != nil {
				return nil, errorf(err.err, "[%d]: %s", i, err.msg)
			}
			out[i] = r
		}
		return out, nil
	}
	return coerce(v, n, "")
}
