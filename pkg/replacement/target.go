package replacement

import (
	"encoding/json"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// leafFunc computes a target field's new value from its old one; exists
// is false for a field that create has just made.
type leafFunc func(old any, exists bool) (any, *failure)

// walker writes through one target field path, with kustomize's
// PathMatcher rules: [key=regexp] and * reach every matching item, create
// makes missing map keys, the item a [key=value] names, and the item just
// past the end of a list.
type walker struct {
	e      *editor
	create bool
	set    leafFunc
}

// update returns v with every field that steps reach set, and how many
// it set.
func (w *walker) update(v any, steps []step) (any, int, *failure) {
	if len(steps) == 0 {
		nv, f := w.set(v, true)
		if f != nil {
			return v, 0, f
		}
		return nv, 1, nil
	}
	switch x := v.(type) {
	case map[string]any:
		if steps[0].kind != stepField {
			return v, 0, fail(ErrTargetField, "%s", wrongKind("SequenceNode", x))
		}
		return w.field(x, steps)
	case []any:
		switch steps[0].kind {
		case stepField:
			return v, 0, fail(ErrTargetField, "%s", wrongKind("MappingNode", x))
		case stepIndex:
			return w.index(x, steps)
		case stepMatch:
			return w.match(x, steps)
		}
		return w.every(x, steps)
	case nil:
		return v, 0, nil // null is a missing field; create replaces it in its parent
	}
	return w.embedded(v, steps)
}

// child walks into a map key or list item that may be missing or null.
func (w *walker) child(c any, present bool, rest []step) (any, int, *failure) {
	if present && (c != nil || len(rest) == 0) {
		return w.update(c, rest)
	}
	if !w.create {
		return c, 0, nil
	}
	if len(rest) == 0 {
		nv, f := w.set(nil, false)
		if f != nil {
			return c, 0, f
		}
		return nv, 1, nil
	}
	return w.update(w.e.newContainer(rest[0]), rest)
}

func (w *walker) field(m map[string]any, steps []step) (any, int, *failure) {
	key := steps[0].key
	c, present := m[key]
	nc, n, f := w.child(c, present, steps[1:])
	if f != nil || n == 0 {
		return m, n, f
	}
	m = w.e.writableMap(m)
	m[key] = nc
	return m, n, nil
}

func (w *walker) index(l []any, steps []step) (any, int, *failure) {
	idx := steps[0].index
	if idx == len(l) && w.create {
		nc, n, f := w.child(nil, false, steps[1:])
		if f != nil || n == 0 {
			return l, n, f
		}
		return w.e.appendItem(l, nc), n, nil
	}
	if idx >= len(l) {
		return l, 0, fail(ErrTargetField, "index %d specified but only %d elements found", idx, len(l))
	}
	return w.setItem(l, idx, steps[1:])
}

// setItem walks into item i and writes the result back.
func (w *walker) setItem(l []any, i int, rest []step) ([]any, int, *failure) {
	nc, n, f := w.child(l[i], true, rest)
	if f != nil || n == 0 {
		return l, n, f
	}
	l = w.e.writableList(l)
	l[i] = nc
	return l, n, nil
}

func (w *walker) every(l []any, steps []step) (any, int, *failure) {
	total := 0
	for i := range l {
		var n int
		var f *failure
		if l, n, f = w.setItem(l, i, steps[1:]); f != nil {
			return l, 0, f
		}
		total += n
	}
	return l, total, nil
}

func (w *walker) match(l []any, steps []step) (any, int, *failure) {
	st := steps[0]
	total := 0
	for i, item := range l {
		if !st.matchesItem(item) {
			continue
		}
		var n int
		var f *failure
		if l, n, f = w.setItem(l, i, steps[1:]); f != nil {
			return l, 0, f
		}
		total += n
	}
	if total > 0 || !w.create {
		return l, total, nil
	}
	return w.appendMatch(l, st, steps[1:])
}

// appendMatch creates the item a [key=value] names, with value as an
// untagged YAML scalar (as kustomize does), and walks into it.
func (w *walker) appendMatch(l []any, st step, rest []step) (any, int, *failure) {
	v, err := resolve(tagNone, st.value)
	if err != nil {
		return l, 0, fail(ErrValue, "yaml: %s", err)
	}
	var nc any
	var n int
	var f *failure
	switch {
	case st.key != "" && len(rest) == 0:
		nc, n, f = w.update(map[string]any{st.key: v}, nil)
	case st.key != "":
		nc, n, f = w.update(w.e.writableMap(map[string]any{st.key: v}), rest)
	default:
		nc, n, f = w.child(nil, false, rest)
	}
	if f != nil || n == 0 {
		return l, n, f
	}
	return w.e.appendItem(l, nc), n, nil
}

// matchesItem reports whether a list item matches a [key=regexp] step.
func (s step) matchesItem(item any) bool {
	if s.key == "" {
		return s.re.MatchString(matchText(item))
	}
	m, ok := item.(map[string]any)
	if !ok {
		return false
	}
	v, ok := m[s.key]
	return ok && s.re.MatchString(matchText(v))
}

// embedded walks into a scalar that holds a YAML or JSON document, as
// kustomize does for a path that goes on past a string (a ConfigMap's
// config.json, say), and writes the document back in its own syntax.
func (w *walker) embedded(v any, steps []step) (any, int, *failure) {
	expected := "MappingNode"
	if steps[0].kind != stepField {
		expected = "SequenceNode"
	}
	s, ok := v.(string)
	if !ok {
		return v, 0, fail(ErrTargetField, "%s", wrongKind(expected, v))
	}
	var doc any
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		return v, 0, fail(ErrTargetField, "%s", err)
	}
	doc, err := normalize(doc)
	if err != nil {
		return v, 0, fail(ErrTargetField, "%s", err)
	}
	switch doc.(type) {
	case map[string]any, []any:
	default:
		return v, 0, fail(ErrTargetField, "%s", wrongKind(expected, doc))
	}
	nd, n, f := w.update(doc, steps)
	if f != nil || n == 0 {
		return v, n, f
	}
	out, err := printEmbedded(nd, s)
	if err != nil {
		return v, 0, fail(ErrValue, "%s", err)
	}
	return out, n, nil
}

// printEmbedded prints a document the way it was written: JSON (indented
// if it was) when it started with { or [, else YAML.
func printEmbedded(doc any, original string) (string, error) {
	trimmed := strings.TrimSpace(original)
	if trimmed[0] == '{' || trimmed[0] == '[' {
		var b []byte
		var err error
		if strings.Contains(original, "\n") && strings.Contains(original, "  ") {
			b, err = json.MarshalIndent(doc, "", "  ")
		} else {
			b, err = json.Marshal(doc)
		}
		return string(b), err
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(doc); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}
