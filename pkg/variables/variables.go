// Package variables is what the ${values.NAME} and ${features.NAME} of
// patch files read: a bag of values and a bag of boolean features, with
// the built-ins of the object being patched. The engine (package kpatch)
// reads Variables; the typed parameters (package parameters), a values
// file (Load) and --set flags (Set, SetString) make them.
package variables

import (
	"fmt"
	"regexp"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/scalar"
)

// The scopes of the variables a patch file sets: values of any type, and
// features, which are booleans.
const (
	ScopeValues   = "values"
	ScopeFeatures = "features"
)

// ScopeItem is the scope of ${item} and ${item.PATH}: the list item an
// entry applies in (the innermost item its path selects with *, k=v or
// allContainers), read while the file applies (Variables.WithItem).
const ScopeItem = "item"

// Variables hold what ${values.NAME} and ${features.NAME} read. Nested
// maps are reached by dotted names. Features are booleans.
type Variables struct {
	Values   map[string]any
	Features map[string]any
	// Texts, if set, hold the text each scalar of Values and Features was
	// written as, where YAML reads it as something other than a string:
	// the number 1.0 was "1.0", 010 "010", the boolean yes "yes", the
	// null ~ "~". A string field of an object receives that text rather
	// than the value printed anew. Texts mirror {values: Values,
	// features: Features}: nested maps and lists shaped like the values,
	// whose leaves are texts; scalars without one are absent (nil in a
	// list). A text is a hint that TextOf gives only while it still
	// denotes the value, so texts merge as their values do.
	Texts map[string]any
	// Builtins, if set, gives the built-in variables of the object being
	// patched (${object.name}, ${namespace.labels.KEY}); see BuiltinReader.
	Builtins BuiltinReader
	// Item is the list item that ${item.PATH} reads, when HasItem: set
	// per item while a file applies (WithItem), never by a values file.
	Item    any
	HasItem bool
}

// WithItem returns a copy of v (nil: no values) whose ${item} is item.
func (v *Variables) WithItem(item any) *Variables {
	var out Variables
	if v != nil {
		out = *v
	}
	out.Item, out.HasItem = item, true
	return &out
}

// BuiltinReader gives the values of the built-in variables for one object.
type BuiltinReader interface {
	// Lookup returns the text of a built-in, named as written without
	// ${}: "object.name", "namespace.labels.team"; ok is false when it has
	// no value (a label the Namespace does not have).
	Lookup(ref string) (string, bool)
}

// nameRE is one segment of a variable's dotted name.
var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// ParseName reads the name of a variable a patch file sets, as written
// inside ${}: "values.a.b" or "features.x". It returns the scope and the
// dotted path; the error says what is wrong in the words patch files
// report.
//
// ${item} and ${item.PATH} (ScopeItem) are read too: the item alone has
// an empty path.
func ParseName(body string) (scope string, path []string, err error) {
	if body == ScopeItem {
		return ScopeItem, nil, nil
	}
	scope, name, ok := strings.Cut(body, ".")
	if ok && scope == ScopeItem {
		path = strings.Split(name, ".")
		for _, p := range path {
			if !nameRE.MatchString(p) {
				return "", nil, fmt.Errorf("invalid field %q in ${%s}: a field of item is a name of letters, digits, '_' and '-' (read other keys with a condition)", p, body)
			}
		}
		return scope, path, nil
	}
	if !ok || scope != ScopeValues && scope != ScopeFeatures {
		return "", nil, fmt.Errorf("unknown variable ${%s}; expected ${values.NAME} or ${features.NAME}", body)
	}
	path = strings.Split(name, ".")
	for _, p := range path {
		if !nameRE.MatchString(p) {
			return "", nil, fmt.Errorf("invalid variable name %q in ${%s}", name, body)
		}
	}
	return scope, path, nil
}

// Set assigns one variable from "values.NAME=V" or "features.NAME=V"; V is
// read as a scalar of a patch file (package scalar) and NAME may be
// dotted.
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
	if scope, _, _ := strings.Cut(name, "."); scope == "object" || scope == "namespace" || scope == ScopeItem {
		return fmt.Errorf("%q: ${%s} is a built-in, which is read-only", assignment, name)
	}
	scope, path, err := ParseName(name)
	if err != nil {
		return fmt.Errorf("%q: %s", assignment, err)
	}
	var val, written any = text, nil // written: the text kept, if any
	if !asString {
		if val, err = scalarValue(text); err != nil {
			return fmt.Errorf("%q: %s", assignment, err)
		}
		if _, isText := val.(string); !isText && NeedsText(text, val) {
			written = text
		}
	}
	if _, isBool := val.(bool); scope == ScopeFeatures && !isBool {
		return fmt.Errorf("%q: features are booleans (true or false)", assignment)
	}
	v.SetText(scope, path, written) // nil: a text it had was the old value's
	m := &v.Values
	if scope == ScopeFeatures {
		m = &v.Features
	}
	if *m == nil {
		*m = map[string]any{}
	}
	cur := *m
	for _, k := range path[:len(path)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = val
	return nil
}

// scalarValue reads the V of --set: a scalar that refers to no variable.
func scalarValue(text string) (any, error) {
	sc, err := scalar.Parse(text)
	if err != nil {
		return nil, err
	}
	s, isText := sc.Value.(string)
	if !isText {
		return sc.Value, nil
	}
	lit, ok := scalar.Literal(s)
	if !ok {
		return nil, fmt.Errorf("a variable's value cannot refer to other variables")
	}
	return lit, nil
}

// Load reads a YAML document with top-level `values:` and `features:`
// maps. Features must be booleans. Keys are text, even those YAML 1.1
// reads as booleans (n, yes).
func Load(data []byte) (*Variables, error) {
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
	v := &Variables{Texts: textsOfDocument(data)}
	for k, val := range doc {
		if val == nil {
			continue
		}
		m, ok := val.(map[string]any)
		switch {
		case k != ScopeValues && k != ScopeFeatures:
			return nil, fmt.Errorf("unknown key %q; expected the maps values and features", k)
		case !ok:
			return nil, fmt.Errorf("%s: expected a map", k)
		case k == ScopeValues:
			v.Values = m
		default:
			if err := checkFeatures(ScopeFeatures, m); err != nil {
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

// WithBuiltins returns a copy of v (nil: no values) whose built-ins are
// read from b.
func (v *Variables) WithBuiltins(b BuiltinReader) *Variables {
	out := &Variables{Builtins: b}
	if v != nil {
		out.Values, out.Features, out.Texts = v.Values, v.Features, v.Texts
	}
	return out
}

// Merge returns the variables of v overridden by those of o, maps merged
// key by key.
func (v *Variables) Merge(o *Variables) *Variables {
	out := &Variables{}
	if v != nil {
		out.Values, out.Features, out.Texts, out.Builtins = v.Values, v.Features, v.Texts, v.Builtins
	}
	if o != nil {
		out.Texts = mergeScopeTexts(out.Texts, o)
		out.Values = jsonvalue.MergeMaps(out.Values, o.Values)
		out.Features = jsonvalue.MergeMaps(out.Features, o.Features)
		if o.Builtins != nil {
			out.Builtins = o.Builtins
		}
	}
	return out
}

// mergeScopeTexts is the mirror of the texts of Merge: base's where o
// sets nothing, o's where it sets a value.
func mergeScopeTexts(base map[string]any, o *Variables) map[string]any {
	if base == nil && o.Texts == nil {
		return nil
	}
	var out map[string]any
	for scope, over := range map[string]map[string]any{ScopeValues: o.Values, ScopeFeatures: o.Features} {
		if t := MergeTexts(base[scope], over, o.Texts[scope]); t != nil {
			if out == nil {
				out = map[string]any{}
			}
			out[scope] = t
		}
	}
	return out
}
