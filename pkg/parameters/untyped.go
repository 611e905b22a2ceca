package parameters

import (
	"maps"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/variables"
)

// assignUntyped sets a value without a schema, as patch files read values
// without a parameters.yaml: any name, any value, maps merged key by key;
// features are booleans. Annotations set nothing without a schema: only
// a schema says what a namespace or an object may set.
func (v *Values) assignUntyped(l *Layer, a *Assignment) *Error {
	if a.Scope == "" || l.FromObjectOnly {
		return nil
	}
	if len(a.Path) == 0 {
		return problemf(ErrSyntax, "an assignment without a name").at(a.Source, "")
	}
	val, ok := normalize(a.Value)
	if !ok {
		return problemf(ErrType, "%v cannot be held in a Kubernetes object", a.Value).at(a.Source, a.Path[0])
	}
	if a.Scope == "features" {
		if prob := checkFeatures(val); prob != nil {
			return prob.at(a.Source, a.Path[0])
		}
	}
	v.ownUntyped()
	m := &v.untyped.Values
	if a.Scope == "features" {
		m = &v.untyped.Features
	}
	texts := a.Texts
	if vm, isMap := val.(map[string]any); isMap && len(a.Path) == 1 {
		base, _ := (*m)[a.Path[0]].(map[string]any)
		val = jsonvalue.MergeMaps(base, vm)
		texts = variables.MergeTexts(v.untyped.TextsAt(a.Scope, a.Path), vm, texts)
	}
	setOwned(m, a.Path, val)
	// the texts of the value set, and no other
	tm, _ := v.untyped.Texts[a.Scope].(map[string]any)
	if len(a.Path) > 1 {
		next, _ := tm[a.Path[0]].(map[string]any)
		texts = nilIfEmpty(variables.ReplaceText(next, a.Path[1:], texts))
	}
	if texts == nil {
		delete(tm, a.Path[0])
		return nil
	}
	if tm == nil {
		if v.untyped.Texts == nil {
			v.untyped.Texts = map[string]any{}
		}
		tm = map[string]any{}
		v.untyped.Texts[a.Scope] = tm
	}
	tm[a.Path[0]] = texts
	return nil
}

// ownUntyped gives v top-level maps of its own for the untyped bag and
// its texts, copied once from those shared with the Values v was cloned
// from: each assignment then costs what it sets, not the whole bag.
func (v *Values) ownUntyped() {
	if v.untypedOwned {
		return
	}
	u := v.untyped
	var texts map[string]any
	for scope, t := range u.Texts {
		if m, ok := t.(map[string]any); ok {
			if texts == nil {
				texts = make(map[string]any, len(u.Texts))
			}
			texts[scope] = maps.Clone(m)
		}
	}
	v.untyped = &variables.Variables{Values: maps.Clone(u.Values), Features: maps.Clone(u.Features), Texts: texts}
	v.untypedOwned = true
}

// setOwned sets the value at path in *m, a map v owns (made when nil):
// its top-level key in place, the maps below copied along the path.
func setOwned(m *map[string]any, path []string, val any) {
	if *m == nil {
		*m = map[string]any{}
	}
	if len(path) == 1 {
		(*m)[path[0]] = val
		return
	}
	next, _ := (*m)[path[0]].(map[string]any)
	(*m)[path[0]] = variables.SetPath(next, path[1:], val)
}

// checkFeatures accepts a boolean, or a map of features.
func checkFeatures(v any) *problem {
	switch x := v.(type) {
	case bool:
		return nil
	case map[string]any:
		for _, e := range x {
			if p := checkFeatures(e); p != nil {
				return p
			}
		}
		return nil
	}
	return problemf(ErrType, "features are booleans (true or false), got %s", describe(v))
}

// untypedVariables copies the bag out.
func (v *Values) untypedVariables() *variables.Variables {
	out := &variables.Variables{}
	for scope, t := range v.untyped.Texts {
		if m, _ := t.(map[string]any); len(m) > 0 {
			if out.Texts == nil {
				out.Texts = make(map[string]any, len(v.untyped.Texts))
			}
			out.Texts[scope] = m
		}
	}
	if v.untyped.Values != nil {
		m, _ := normalize(v.untyped.Values)
		out.Values = m.(map[string]any)
	}
	if v.untyped.Features != nil {
		m, _ := normalize(v.untyped.Features)
		out.Features = m.(map[string]any)
	}
	return out
}
