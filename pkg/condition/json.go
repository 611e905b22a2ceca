package condition

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// jsonMap is a decoded JSON object as a CEL map that converts each field
// once, when an expression first selects it, and keeps it: the fields
// the conditions of one object read are converted once for all of them,
// where a CEL map over the same Go map converts a field (wrapping a
// nested object anew) at each selection of each evaluation. It is what
// types.NewStringInterfaceMap gives but for Find and Get, and it is not
// safe for concurrent use (one object's Vars own it).
type jsonMap struct {
	traits.Mapper
	m      map[string]any
	fields map[string]ref.Val
}

// newJSONMap returns m as a jsonMap.
func newJSONMap(m map[string]any) *jsonMap {
	return &jsonMap{Mapper: types.NewStringInterfaceMap(types.DefaultTypeAdapter, m), m: m}
}

// Find returns the field key, converted once, and whether m has it.
func (j *jsonMap) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return j.Mapper.Find(key)
	}
	if v, ok := j.fields[string(k)]; ok {
		return v, true
	}
	raw, ok := j.m[string(k)]
	if !ok {
		return nil, false
	}
	var v ref.Val
	if obj, isObj := raw.(map[string]any); isObj {
		v = newJSONMap(obj)
	} else {
		v = types.DefaultTypeAdapter.NativeToValue(raw)
	}
	if j.fields == nil {
		j.fields = make(map[string]ref.Val, 4)
	}
	j.fields[string(k)] = v
	return v, true
}

// Get returns the field key, or CEL's no such key error.
func (j *jsonMap) Get(key ref.Val) ref.Val {
	if v, ok := j.Find(key); ok {
		return v
	}
	return j.Mapper.Get(key)
}

// Value is the Go map.
func (j *jsonMap) Value() any { return j.m }
