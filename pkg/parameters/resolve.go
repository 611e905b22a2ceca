package parameters

import (
	"strings"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/variables"
)

// applyDefaults gives every parameter that no layer set its default, in
// the schema's order (every default after the parameters it uses), and
// reports required parameters without a value.
func (v *Values) applyDefaults(errs *errorList) {
	for _, p := range v.schema.order {
		s := &v.slots[p.index]
		switch {
		case s.failed, s.set && !(s.partial && p.hasDefault):
		case p.hasDefault:
			def, defTexts, prob := v.defaultValue(p)
			switch {
			case prob != nil:
				*s = slot{failed: true}
				errs.add(prob.at(p.defSrc, p.name))
			case s.set: // an object set in part by layers, over its default
				s.texts = variables.MergeTexts(defTexts, s.value, s.texts)
				s.value, s.partial = jsonvalue.MergeMaps(def.(map[string]any), s.value.(map[string]any)), false
			default:
				*s = slot{value: def, texts: defTexts, src: p.defSrc, set: true}
			}
		case p.required:
			errs.addf(p.src, p.name, ErrRequired, "required, and no value is given (set %s)", p.Ref())
		}
	}
}

// defaultValue returns p's default and the texts of its scalars: its
// value, or its template rendered with the parameters it uses, which the
// order has resolved before p.
func (v *Values) defaultValue(p *Parameter) (any, any, *problem) {
	if p.tmpl == nil {
		return p.defValue, p.defTexts, nil
	}
	return v.render(p)
}

// render computes a default that uses other parameters: a default that is
// one variable takes its value, type and texts; text with variables is
// text, with each scalar spliced in as it was written.
func (v *Values) render(p *Parameter) (any, any, *problem) {
	if len(p.tmpl) == 1 {
		val, texts, prob := v.lookup(p, p.tmpl[0].ref)
		if prob != nil {
			return nil, nil, prob
		}
		if val, prob = p.typ.accept(val); prob == nil {
			prob = p.check(val)
		}
		if prob != nil {
			return nil, nil, problemf(prob.err, "default %s: %s", quoteText(p.def.(string)), prob.msg)
		}
		return val, texts, nil
	}
	var b strings.Builder
	for _, pt := range p.tmpl {
		if pt.ref == nil {
			b.WriteString(pt.text)
			continue
		}
		val, texts, prob := v.lookup(p, pt.ref)
		if prob != nil {
			return nil, nil, prob
		}
		switch val.(type) {
		case map[string]any, []any, nil:
			return nil, nil, problemf(ErrType, "default %s: ${%s} is %s, which cannot be spliced into text", quoteText(p.def.(string)), pt.ref, describe(val))
		}
		if text, ok := texts.(string); ok && variables.Denotes(text, val) {
			b.WriteString(text)
		} else {
			b.WriteString(formatScalar(val))
		}
	}
	text := b.String()
	if prob := p.check(text); prob != nil {
		return nil, nil, problemf(prob.err, "default %s: %s", quoteText(p.def.(string)), prob.msg)
	}
	return text, nil, nil
}

// lookup reads a reference of p's default: a parameter, and keys inside it
// for an object; with the texts of its scalars.
func (v *Values) lookup(p *Parameter, ref *reference) (any, any, *problem) {
	dep := v.schema.byName[ref.Path[0]]
	s := v.slots[dep.index]
	if !s.set {
		why := "which has no value"
		if s.failed {
			why = "whose value failed"
		}
		return nil, nil, problemf(ErrNoValue, "default %s uses %s, %s", quoteText(p.def.(string)), dep.name, why)
	}
	val, texts := s.value, s.texts
	for _, k := range ref.Path[1:] {
		m, _ := val.(map[string]any)
		tm, _ := texts.(map[string]any)
		var ok bool
		texts = tm[k]
		if val, ok = m[k]; !ok {
			return nil, nil, problemf(ErrNoValue, "default %s uses ${%s}, which has no value", quoteText(p.def.(string)), ref)
		}
	}
	return val, texts, nil
}
