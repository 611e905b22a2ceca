package kpatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// Variables hold what ${values.NAME} and ${features.NAME} read. Nested
// maps are reached by dotted names. Features are booleans.
type Variables struct {
	Values   map[string]any
	Features map[string]any
	// Builtins, if set, gives the built-in variables of the object being
	// patched (${object.name}, ${namespace.labels.KEY}); see BuiltinReader.
	Builtins BuiltinReader
}

// lookup finds a variable's value; a map or list is not a value.
func (v *Variables) lookup(ref *VarRef) (any, *problem) {
	if ref.IsBuiltin() {
		return v.lookupBuiltin(ref)
	}
	var m map[string]any
	if v != nil {
		m = v.Values
		if ref.Scope == "features" {
			m = v.Features
		}
	}
	val, ok := lookupPath(m, ref.Path)
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
	if !jsonScalar(val) {
		return nil, errorf(ErrVariable, "variable %s is %v (%T); a variable is text, a boolean, null or a finite number (JSON has no infinity or NaN)", ref, val, val)
	}
	return val, nil
}

// jsonScalar reports whether a variable's value is a scalar JSON can
// carry: text, a boolean, null or a finite number.
func jsonScalar(v any) bool {
	switch x := v.(type) {
	case string, bool, nil, int, int32, int64:
		return true
	case json.Number:
		_, err := strconv.ParseFloat(x.String(), 64)
		return err == nil || errors.Is(err, strconv.ErrRange) && intRE.MatchString(x.String())
	}
	f, ok := number(v)
	return ok && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// lookupPath walks nested maps by path; a key holding dots is found whole
// as well.
func lookupPath(m map[string]any, path []string) (any, bool) {
	if v, ok := m[strings.Join(path, ".")]; ok {
		return v, true
	}
	for i, k := range path {
		v, ok := m[k]
		if !ok {
			return nil, false
		}
		if i == len(path)-1 {
			return v, true
		}
		if m, ok = v.(map[string]any); !ok {
			return nil, false
		}
	}
	return nil, false
}

// Set assigns one variable from "values.NAME=V" or "features.NAME=V"; V is
// read as a YAML scalar and NAME may be dotted.
func (v *Variables) Set(assignment string) error {
	return v.assign(assignment, false)
}

// SetString assigns "values.NAME=V" with V taken as text, whatever it
// looks like (1.10 stays "1.10").
func (v *Variables) SetString(assignment string) error {
	return v.assign(assignment, true)
}

func (v *Variables) assign(assignment string, asString bool) error {
	name, text, ok := strings.Cut(assignment, "=")
	if !ok {
		return fmt.Errorf("%q: expected values.NAME=VALUE or features.NAME=VALUE", assignment)
	}
	ref, err := parseVarRef(name, 1)
	if err != nil {
		return fmt.Errorf("%q: %s", assignment, err.msg)
	}
	if ref.IsBuiltin() {
		return fmt.Errorf("%q: %s is a built-in, which is read-only", assignment, ref)
	}
	var val any = text
	if !asString {
		parsed, perr := parseValue(text, 1)
		if perr != nil {
			return fmt.Errorf("%q: %s", assignment, perr.msg)
		}
		if parsed.IsTemplate() {
			return fmt.Errorf("%q: a variable's value cannot refer to other variables", assignment)
		}
		val = parsed.Scalar
	}
	if _, isBool := val.(bool); ref.Scope == "features" && !isBool {
		return fmt.Errorf("%q: features are booleans (true or false)", assignment)
	}
	m := &v.Values
	if ref.Scope == "features" {
		m = &v.Features
	}
	if *m == nil {
		*m = map[string]any{}
	}
	cur := *m
	for _, k := range ref.Path[:len(ref.Path)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[ref.Path[len(ref.Path)-1]] = val
	return nil
}

// LoadVariables reads a YAML document with top-level `values:` and
// `features:` maps. Features must be booleans.
func LoadVariables(data []byte) (*Variables, error) {
	js, err := yaml.YAMLToJSON(quoteKeys(data))
	if err != nil {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	var doc map[string]any
	if string(js) != "null" {
		if err := utiljson.Unmarshal(js, &doc); err != nil {
			return nil, fmt.Errorf("expected a map holding values and features: %w", err)
		}
	}
	v := &Variables{}
	for k, val := range doc {
		if val == nil {
			continue
		}
		m, ok := val.(map[string]any)
		switch {
		case k != "values" && k != "features":
			return nil, fmt.Errorf("unknown key %q; expected the maps values and features", k)
		case !ok:
			return nil, fmt.Errorf("%s: expected a map", k)
		case k == "values":
			v.Values = m
		default:
			if err := checkFeatures("features", m); err != nil {
				return nil, err
			}
			v.Features = m
		}
	}
	return v, nil
}

func checkFeatures(prefix string, m map[string]any) error {
	for k, val := range m {
		switch x := val.(type) {
		case bool:
		case map[string]any:
			if err := checkFeatures(prefix+"."+k, x); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s.%s is %v; features are booleans", prefix, k, val)
		}
	}
	return nil
}

// Merge returns the variables of v overridden by those of o, maps merged
// key by key.
func (v *Variables) Merge(o *Variables) *Variables {
	out := &Variables{}
	if v != nil {
		out.Values, out.Features, out.Builtins = v.Values, v.Features, v.Builtins
	}
	if o != nil {
		out.Values = MergeMaps(out.Values, o.Values)
		out.Features = MergeMaps(out.Features, o.Features)
		if o.Builtins != nil {
			out.Builtins = o.Builtins
		}
	}
	return out
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
