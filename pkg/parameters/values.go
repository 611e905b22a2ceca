package parameters

import (
	"slices"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/variables"
)

// Values are the validated values of a schema's layers, before defaults:
// the webhook assigns a ConfigMap's values.yaml once, and each request's
// annotations on top with Resolve. Values are immutable and safe for
// concurrent use.
type Values struct {
	schema  *Schema
	slots   []slot               // by parameter index
	untyped *variables.Variables // the bag of values without a schema
	// untypedOwned says that the top-level maps of untyped (and of its
	// texts) are v's own, not shared with the Values v was cloned from:
	// an assignment sets their keys in place (ownUntyped).
	untypedOwned bool
}

// slot is the value of one parameter.
type slot struct {
	value  any
	texts  any // the texts of value's scalars (Assignment.Texts)
	src    Source
	set    bool // a layer set the parameter
	failed bool // the last value a layer gave failed the schema
	// partial marks an object set by layers only: it merges onto the
	// default, the lowest layer, once the default is known.
	partial bool
}

// Assign validates the layers, lowest precedence first, and returns the
// values they set. On error the Values still hold every value that passed;
// a parameter whose value failed has none.
func (s *Schema) Assign(layers ...Layer) (*Values, error) {
	v := &Values{schema: s}
	if s == nil {
		v.untyped, v.untypedOwned = &variables.Variables{}, true
	} else {
		v.slots = make([]slot, len(s.params))
	}
	var errs errorList
	v.assign(layers, &errs)
	return v, errs.Err()
}

// Resolve adds the layers, which win over the values of v, applies the
// defaults and checks that every required parameter has a value.
//
// The result is what patch files read: booleans under Features, every
// other type under Values, each a copy the caller may keep. On error the
// result still holds every parameter that resolved; each *Error names its
// parameter (ParamErrors lists them), so that a caller may fail only what
// uses a failed parameter.
func (v *Values) Resolve(layers ...Layer) (*variables.Variables, error) {
	w := v.clone()
	var errs errorList
	w.assign(layers, &errs)
	if w.schema == nil {
		return w.untypedVariables(), errs.Err()
	}
	w.applyDefaults(&errs)
	return w.variables(), errs.Err()
}

// Resolve validates the layers, lowest precedence first, on top of the
// defaults: s.Assign(layers...) and Resolve in one step.
func (s *Schema) Resolve(layers ...Layer) (*variables.Variables, error) {
	v, _ := s.Assign()
	return v.Resolve(layers...)
}

// clone copies v for more layers; values are never modified in place, so
// the copy shares them.
func (v *Values) clone() *Values {
	w := &Values{schema: v.schema, slots: slices.Clone(v.slots)}
	if v.untyped != nil {
		w.untyped = &variables.Variables{Values: v.untyped.Values, Features: v.untyped.Features, Texts: v.untyped.Texts}
	}
	return w
}

func (v *Values) assign(layers []Layer, errs *errorList) {
	for i := range layers {
		l := &layers[i]
		for j := range l.Assignments {
			var e *Error
			if v.schema == nil {
				e = v.assignUntyped(l, &l.Assignments[j])
			} else {
				e = v.assignTyped(l, &l.Assignments[j])
			}
			if e != nil {
				errs.add(e)
			}
		}
	}
}

// assignTyped sets one parameter from an assignment of layer l.
func (v *Values) assignTyped(l *Layer, a *Assignment) *Error {
	if len(a.Path) == 0 {
		return problemf(ErrSyntax, "an assignment without a name").at(a.Source, "")
	}
	name := a.Path[0]
	p, ok := v.schema.byName[name]
	switch {
	case !ok && l.SkipUndeclared, ok && l.FromObjectOnly && !p.fromObject:
		return nil
	case !ok:
		return problemf(ErrUndeclared, "not declared in the parameter schema").at(a.Source, name)
	case a.Scope != "" && a.Scope != p.typ.Scope():
		return problemf(ErrUndeclared, "%s.%s is not declared: %s is %s parameter, set as %s", a.Scope, name, name, p.typ.article(), p.Ref()).at(a.Source, name)
	}
	s := &v.slots[p.index]
	val, texts, prob := p.convert(a, s)
	if prob != nil {
		*s = slot{failed: true}
		return prob.at(a.Source, name)
	}
	partial := p.typ == Object && (!s.set || s.partial)
	*s = slot{value: val, texts: texts, src: a.Source, set: true, partial: partial}
	return nil
}

// convert turns an assignment into the parameter's new value and the
// texts of its scalars: typed, checked, and merged with the object it
// replaces.
func (p *Parameter) convert(a *Assignment, cur *slot) (any, any, *problem) {
	baseTexts, _ := cur.texts.(map[string]any)
	if len(a.Path) > 1 {
		if p.typ != Object {
			return nil, nil, problemf(ErrType, "%s is %s; only an object has keys to set", p.name, p.typ.article())
		}
		val, ok := normalize(a.Value)
		if !ok {
			return nil, nil, problemf(ErrType, "%v cannot be held in a Kubernetes object", a.Value)
		}
		base, _ := cur.value.(map[string]any)
		return variables.SetPath(base, a.Path[1:], val), nilIfEmpty(variables.ReplaceText(baseTexts, a.Path[1:], a.Texts)), nil
	}
	var (
		val   any
		texts = a.Texts
		prob  *problem
	)
	if text, isText := a.Value.(string); a.Text && isText {
		val, texts, prob = p.typ.fromText(text)
	} else {
		val, prob = p.typ.accept(a.Value)
	}
	if prob == nil {
		prob = p.check(val)
	}
	if prob != nil {
		return nil, nil, prob
	}
	if base, ok := cur.value.(map[string]any); ok && p.typ == Object {
		return jsonvalue.MergeMaps(base, val.(map[string]any)), variables.MergeTexts(cur.texts, val, texts), nil
	}
	return val, texts, nil
}

// nilIfEmpty is m, or nil (no texts) when it holds none.
func nilIfEmpty(m map[string]any) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// variables copies the resolved values out, in declaration order.
func (v *Values) variables() *variables.Variables {
	var values, features int
	for _, s := range v.slots {
		if s.set {
			values++
		}
	}
	for _, p := range v.schema.params {
		if p.typ == Boolean && v.slots[p.index].set {
			features++
		}
	}
	out := &variables.Variables{}
	if values -= features; values > 0 {
		out.Values = make(map[string]any, values)
	}
	if features > 0 {
		out.Features = make(map[string]any, features)
	}
	for _, p := range v.schema.params {
		s := v.slots[p.index]
		if !s.set {
			continue
		}
		m, scope := out.Values, variables.ScopeValues
		if p.typ == Boolean {
			m, scope = out.Features, variables.ScopeFeatures
		}
		m[p.name], _ = normalize(s.value)
		if s.texts != nil {
			if out.Texts == nil {
				out.Texts = map[string]any{}
			}
			tm, _ := out.Texts[scope].(map[string]any)
			if tm == nil {
				tm = map[string]any{}
				out.Texts[scope] = tm
			}
			tm[p.name] = s.texts
		}
	}
	return out
}
