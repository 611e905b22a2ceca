package kpatch

import (
	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/variables"
)

// Variables hold what ${values.NAME} and ${features.NAME} read
// (variables.Variables).
type Variables = variables.Variables

// lookup finds a variable's value; a map or list is not a value.
func lookup(v *Variables, ref *VarRef) (any, *problem) {
	if ref.IsBuiltin() {
		return lookupBuiltin(v, ref)
	}
	if ref.IsItem() {
		val, err := lookupItem(v, ref)
		if err != nil {
			return nil, err
		}
		if isNode(val) {
			return nil, errorf(ErrVariable, "%s is a map or list, which is substituted only as a whole value (unquoted, alone), never into text", ref)
		}
		return val, nil
	}
	var m map[string]any
	if v != nil {
		m = v.Values
		if ref.Scope == "features" {
			m = v.Features
		}
	}
	val, ok := variables.Lookup(m, ref.Path)
	if !ok {
		return nil, errorf(ErrVariable, "variable %s is not defined", ref)
	}
	switch val.(type) {
	case map[string]any, []any:
		return nil, errorf(ErrVariable, "variable %s is a map or list, which is substituted only as a whole value (unquoted, alone), never into text", ref)
	}
	if _, isBool := val.(bool); ref.Scope == "features" && !isBool {
		return nil, errorf(ErrVariable, "feature %s is %v; features are booleans", ref, val)
	}
	if !jsonvalue.IsScalar(val) {
		return nil, errorf(ErrVariable, "variable %s is %v (%T); a variable is text, a boolean, null or a finite number (JSON has no infinity or NaN)", ref, val, val)
	}
	return val, nil
}

// LoadVariables reads a YAML document with top-level `values:` and
// `features:` maps (variables.Load).
func LoadVariables(data []byte) (*Variables, error) { return variables.Load(data) }
