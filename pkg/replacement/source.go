package replacement

import (
	"fmt"
	"strings"

	"kpatch.dev/kpatch/pkg/fieldtype"
	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// candidate is an object a source may select, with its id.
type candidate struct {
	obj map[string]any
	id  ResID
}

// String formats the source selector as kustomize does in its messages:
// the id, then the fieldPath and options when given.
func (s *source) String() string {
	out := s.id.String()
	if s.given != "" {
		out += ":" + s.given
	}
	if s.opts.delimiter != "" || s.opts.create {
		out += fmt.Sprintf(":%s(%d), create=%t", s.opts.delimiter, s.opts.index, s.opts.create)
	}
	return out
}

// pool is the candidates of one resolution: self (if any), then those of
// rest that do not have the id of self or skip (an older copy of the
// admitted object), without copying them.
type pool struct {
	self, skip *candidate
	rest       []candidate
}

// resolve finds the one candidate the source selects and reads its value.
func (s *source) resolve(p pool) (value, *Error) {
	var found *candidate
	if p.self != nil && s.id.selectsSource(p.self.id) {
		found = p.self
	}
	for i := range p.rest {
		c := &p.rest[i]
		if !s.id.selectsSource(c.id) || p.self != nil && c.id == p.self.id || p.skip != nil && c.id == p.skip.id {
			continue
		}
		if found != nil {
			return value{}, fail(ErrAmbiguousSource, "multiple matches for selector %s", s).at(s.pos, "")
		}
		found = c
	}
	if found == nil {
		return value{}, fail(ErrNoSource, "nothing selected by %s", s).at(s.pos, "")
	}
	v, ok, f := lookup(found.obj, s.path.steps)
	if f != nil {
		return value{}, f.at(s.pathPos, "")
	}
	if !ok || isNilOrEmpty(v) {
		return value{}, fail(ErrSourceField, "fieldPath `%s` is missing for replacement source %s", s.path, s.id).at(s.pathPos, "")
	}
	val, f := s.opts.refine(v)
	if f != nil {
		return value{}, f.at(s.opts.pos, "")
	}
	return val, nil
}

// lookup reads a source path with kustomize's PathGetter rules: the value,
// or false when a part is missing or null.
func lookup(v any, steps []step) (any, bool, *failure) {
	for _, st := range steps {
		if v == nil {
			return nil, false, nil
		}
		if st.kind == stepField {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false, lookupError("MappingNode", v)
			}
			if v, ok = m[st.key]; !ok {
				return nil, false, nil
			}
			continue
		}
		l, ok := v.([]any)
		if !ok {
			return nil, false, lookupError("SequenceNode", v)
		}
		if v, ok = item(l, st); !ok {
			return nil, false, nil
		}
	}
	return v, true, nil
}

func lookupError(expected string, got any) *failure {
	return fail(ErrSourceField, "error looking up replacement source: %s", wrongKind(expected, got))
}

// item picks the list item a source step names: by position, the last,
// or the first whose key (or itself) has exactly the value's text.
func item(l []any, st step) (any, bool) {
	switch st.kind {
	case stepIndex:
		if st.index < len(l) {
			return l[st.index], true
		}
	case stepLast:
		if len(l) > 0 {
			return l[len(l)-1], true
		}
	case stepMatch:
		for _, it := range l {
			if st.key == "" && nodeValue(it) == st.value {
				return it, true
			}
			if m, ok := it.(map[string]any); ok && st.key != "" {
				if fv, ok := m[st.key]; ok && nodeValue(fv) == st.value {
					return it, true
				}
			}
		}
	}
	return nil, false
}

// nodeValue is the text kyaml compares in a source's [key=value]: a
// scalar's text, nothing for a map or list.
func nodeValue(v any) string {
	_, t, _ := scalarOf(v)
	return t
}

// isNilOrEmpty reports what kustomize treats as a missing source field:
// null, an empty map, an empty list.
func isNilOrEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// refine applies a source's delimiter and index: the index-th part of the
// value split at the delimiter.
func (o options) refine(v any) (value, *failure) {
	val := valueOf(v)
	if o.delimiter == "" {
		return val, nil
	}
	if !val.isScalar() {
		return value{}, fail(ErrSourceField, "delimiter option can only be used with scalar nodes")
	}
	parts := strings.Split(val.text, o.delimiter)
	if o.index >= len(parts) || o.index < 0 {
		return value{}, fail(ErrSourceField, "options.index %d is out of bounds for value %s", o.index, val.text)
	}
	val.text = parts[o.index]
	return val, nil
}

// splice puts v into a target's text at the options' index: replacing
// that part, before all parts (index < 0), or after them (index past the
// end).
func (o options) splice(target, v string) string {
	parts := strings.Split(target, o.delimiter)
	switch {
	case o.index < 0:
		parts = append([]string{v}, parts...)
	case o.index >= len(parts):
		parts = append(parts, v)
	default:
		parts[o.index] = v
	}
	return strings.Join(parts, o.delimiter)
}

// object is the value as it is put in place of a map or list: a copy of
// the subtree, or the scalar decoded with its own tag.
func (v value) object() (any, *failure) {
	if !v.isScalar() {
		return jsonvalue.DeepCopy(v.tree), nil
	}
	out, err := resolve(v.tag, v.text)
	if err != nil {
		return nil, fail(ErrValue, "yaml: %s", err)
	}
	return out, nil
}

// writeTo returns a target field's new value, as kustomize's
// setFieldValue does, typed by the target: a scalar target takes the
// value's text, read as the type the schema gives the field (ft), else as
// the type the field has; a field that create made, or a null, takes the
// source's type (a string stays a string; a sourceValue, or a number or
// boolean, is read as YAML reads its text). A map or list target is
// replaced by the value.
func (v value) writeTo(old any, exists bool, o options, ft fieldtype.Type) (any, *failure) {
	tag, text, scalar := tagNone, "", v.isScalar()
	if exists && old != nil {
		tag, text, scalar = scalarOf(old)
	} else if v.tag == tagStr {
		tag = tagStr
	}
	if o.delimiter != "" {
		if !scalar {
			return nil, fail(ErrValue, "delimiter option can only be used with scalar nodes")
		}
		v = value{text: o.splice(text, v.text), tag: v.tag}
	}
	if !scalar {
		return v.object()
	}
	if ft != fieldtype.Unknown {
		tag = tagOf(ft)
	}
	out, err := resolve(tag, v.text)
	if err != nil {
		switch want := typeOfTag(tag); {
		case ft != fieldtype.Unknown: // the schema's type
			return nil, fail(ErrFieldType, "the field wants %s, not %q", article(want), v.text)
		case want != fieldtype.Unknown: // the type the field has, as kustomize reads it
			return nil, fail(ErrValue, "the field holds %s, not %q (yaml: %s)", article(want), v.text, err)
		}
		return nil, fail(ErrValue, "yaml: %s", err)
	}
	return out, nil
}
