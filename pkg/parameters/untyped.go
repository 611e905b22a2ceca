package parameters

import (
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
	m := &v.untyped.Values
	if a.Scope == "features" {
		if prob := checkFeatures(val); prob != nil {
			return prob.at(a.Source, a.Path[0])
		}
		m = &v.untyped.Features
	}
	texts := a.Texts
	if vm, isMap := val.(map[string]any); isMap && len(a.Path) == 1 {
		base, _ := (*m)[a.Path[0]].(map[string]any)
		val = jsonvalue.MergeMaps(base, vm)
		texts = variables.MergeTexts(v.untyped.TextsAt(a.Scope, a.Path), vm, texts)
	}
	*m = variables.SetPath(*m, a.Path, val)
	v.untyped.SetText(a.Scope, a.Path, texts) // the texts of the value set, and no other
	return nil
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
	out := &variables.Variables{Texts: v.untyped.Texts}
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
