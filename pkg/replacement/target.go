package replacement

import (
	"strconv"

	"kpatch.dev/kpatch/pkg/fieldtype"
)

// leafFunc computes a target field's new value from its old one; exists
// is false for a field that create has just made. A walker with a
// leafFunc uses it instead of writing its value.
type leafFunc func(old any, exists bool) (any, *failure)

// walker writes through one target field path, with kustomize's
// PathMatcher rules: [key=regexp] and * reach every matching item, create
// makes missing map keys, the item a [key=value] names, and the item just
// past the end of a list.
type walker struct {
	e      *editor
	create bool
	set    leafFunc
	// path is the field being walked: the keys and list positions from
	// the object to it, for set to read; in pathBuf while it fits.
	path    []string
	pathBuf [16]string
	// val and opts are what a target field receives when set is nil,
	// typed by typeOf for objects of apiVersion and kind.
	val              value
	opts             options
	typeOf           fieldtype.Func
	apiVersion, kind string
}

// setLeaf computes a target field's new value: with set, or else by
// writing val with opts, typed by typeOf.
func (w *walker) setLeaf(old any, exists bool) (any, *failure) {
	if w.set != nil {
		return w.set(old, exists)
	}
	ft := fieldtype.Unknown
	if w.typeOf != nil {
		ft = w.typeOf(w.apiVersion, w.kind, w.path)
	}
	return w.val.writeTo(old, exists, w.opts, ft)
}

// enter makes key the last part of the path.
func (w *walker) enter(key string) { w.path = append(w.path, key) }

// enterItem makes the list item at position i the last part of the path.
func (w *walker) enterItem(i int) { w.path = append(w.path, position(i)) }

// positions are the texts of the first list positions, made once.
var positions = func() (p [1024]string) {
	for i := range p {
		p[i] = strconv.Itoa(i)
	}
	return p
}()

// position is the text of a list position, without allocating for the
// first 1,024.
func position(i int) string {
	if i < len(positions) {
		return positions[i]
	}
	return strconv.Itoa(i)
}

// leave drops the last part of the path.
func (w *walker) leave() { w.path = w.path[:len(w.path)-1] }

// update returns v with every field that steps reach set, and how many
// it set.
func (w *walker) update(v any, steps []step) (any, int, *failure) {
	if len(steps) == 0 {
		nv, f := w.setLeaf(v, true)
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
		nv, f := w.setLeaf(nil, false)
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
	w.enter(key)
	nc, n, f := w.child(c, present, steps[1:])
	w.leave()
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
		w.enterItem(idx)
		nc, n, f := w.child(nil, false, steps[1:])
		w.leave()
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
	w.enterItem(i)
	nc, n, f := w.child(l[i], true, rest)
	w.leave()
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
	w.enterItem(len(l))
	defer w.leave()
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
