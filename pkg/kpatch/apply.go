package kpatch

import (
	"maps"
	"strings"
	"sync"
	"unsafe"
)

// ApplyOptions adjust how patches meet an object.
type ApplyOptions struct {
	// Namespace is used for matching `namespace/` targets when the object
	// has no metadata.namespace, as on an admission request.
	Namespace string
}

// Apply applies the patches in order to obj and returns the patched
// object. obj is never modified: the result shares the parts that did not
// change with obj, so treat both as read-only. A patch that fails on the
// object leaves no trace in the result; its errors (*ApplyError) are
// returned in an ErrorList, and the other patches still apply.
func Apply(obj map[string]any, patches []*Patch, opts ApplyOptions) (map[string]any, error) {
	ref := objectRef(obj, opts.Namespace)
	a := appliers.Get().(*applier)
	a.root = obj
	var errs ErrorList
	for _, p := range patches {
		errs = a.applyPatch(p, &ref, errs)
	}
	out := a.root
	a.reset()
	appliers.Put(a)
	return out, errs.Err()
}

// Apply applies this patch alone; see the package function Apply.
func (p *Patch) Apply(obj map[string]any, opts ApplyOptions) (map[string]any, error) {
	return Apply(obj, []*Patch{p}, opts)
}

func objectRef(obj map[string]any, namespace string) ObjectRef {
	ref := ObjectRef{Namespace: namespace}
	ref.APIVersion, _ = obj["apiVersion"].(string)
	ref.Kind, _ = obj["kind"].(string)
	if md, ok := obj["metadata"].(map[string]any); ok {
		ref.Name, _ = md["name"].(string)
		if ns, _ := md["namespace"].(string); ns != "" {
			ref.Namespace = ns
		}
	}
	return ref
}

var appliers = sync.Pool{New: func() any { return new(applier) }}

// applier is the state of one Apply call: the object being built, the
// maps and lists it has already copied (and may change in place), and an
// undo log that takes a failed file's changes back out.
type applier struct {
	root   map[string]any
	owned  []unsafe.Pointer
	undo   []undoRecord
	images []imageWrite // image references set by parts, checked when the file is done
}

type undoRecord struct {
	m    map[string]any // a map entry: m[key] was old, or absent if !had
	key  string
	l    []any // a list item: l[idx] was old
	idx  int
	old  any
	had  bool
	root map[string]any // the root was this
}

func (a *applier) reset() {
	clear(a.owned)
	a.owned = a.owned[:0]
	clear(a.undo)
	a.undo = a.undo[:0]
	clear(a.images)
	a.images = a.images[:0]
	a.root = nil
}

// applyPatch applies one file atomically and appends its errors. A file
// that fails, or leaves an image reference it built invalid, is rolled
// back.
func (a *applier) applyPatch(p *Patch, ref *ObjectRef, errs ErrorList) ErrorList {
	mark, images, before := len(a.undo), len(a.images), len(errs)
	for _, s := range p.sections {
		if s.target.Matches(ref) {
			errs = a.applySection(s, ref, p, errs)
		}
	}
	if len(errs) == before {
		errs = a.checkImages(images, p.name, ref, errs)
	}
	if len(errs) > before {
		a.rollback(mark)
	}
	clear(a.images[images:])
	a.images = a.images[:images]
	return errs
}

// applySection applies one section of p and appends its errors.
func (a *applier) applySection(s *section, ref *ObjectRef, p *Patch, errs ErrorList) ErrorList {
	if s.merge != nil {
		if e := a.mergePatch(s.merge, ref, p.vars); e != nil {
			errs = append(errs, e.applyError(p.name, ref))
		}
		return errs
	}
	for _, op := range s.ops {
		if e := a.run(op.planFor(ref.APIVersion, ref.Kind), p.vars); e != nil {
			errs = append(errs, e.applyError(p.name, ref))
		}
	}
	return errs
}

// run executes one plan from the root.
func (a *applier) run(pl *plan, vars *Variables) *problem {
	if pl.err != nil {
		return pl.err
	}
	val, err := pl.resolveValue(vars)
	if err != nil {
		return err.orAt(pl.line, pl.valueCol)
	}
	return a.walk(slot{}, pl, 0, val, vars)
}

// resolveValue returns the plan's value, reading variables if it has any.
func (pl *plan) resolveValue(vars *Variables) (any, *problem) {
	t := pl.tmpl
	if t == nil {
		return pl.value, nil
	}
	if t.Tree != nil {
		tree, err := expandTree(t.Tree, vars)
		if err != nil {
			return nil, err
		}
		out, err := coerceTree(tree, pl.leaf, t.src, false)
		if err != nil {
			return nil, err.prefixed(Path(pl.steps).String())
		}
		return out, nil
	}
	var v any
	if ref := t.wholeVar(); ref != nil {
		val, err := vars.lookup(ref)
		if err != nil {
			return nil, err
		}
		v = val
	} else {
		var b strings.Builder
		for _, part := range t.Parts {
			if part.Var == nil {
				b.WriteString(part.Text)
				continue
			}
			val, err := vars.lookup(part.Var)
			if err != nil {
				return nil, err
			}
			text, _ := scalarText(val)
			b.WriteString(text)
		}
		v = b.String()
	}
	leaf := pl.leaf
	if n := len(pl.steps); n > 0 && pl.steps[n-1].Kind == maybeImagePart {
		leaf = nil
	}
	out, err := coerce(v, leaf, "")
	if err != nil {
		return nil, errorf(err.err, "%s: %s (from %s)", Path(pl.steps).String(), err.msg, t.Raw)
	}
	return out, nil
}

// slot is a place that holds a value: a map entry, a list item, or (zero)
// the root. Its container is always owned by the applier.
type slot struct {
	m   map[string]any
	key string
	l   []any
	idx int
}

func (a *applier) get(s slot) (any, bool) {
	switch {
	case s.m != nil:
		v, ok := s.m[s.key]
		return v, ok
	case s.l != nil:
		return s.l[s.idx], true
	}
	return a.root, true
}

func (a *applier) set(s slot, v any) {
	switch {
	case s.m != nil:
		old, had := s.m[s.key]
		a.undo = append(a.undo, undoRecord{m: s.m, key: s.key, old: old, had: had})
		s.m[s.key] = v
	case s.l != nil:
		a.undo = append(a.undo, undoRecord{l: s.l, idx: s.idx, old: s.l[s.idx]})
		s.l[s.idx] = v
	default:
		a.undo = append(a.undo, undoRecord{root: a.root})
		a.root = v.(map[string]any)
	}
}

func (a *applier) deleteKey(m map[string]any, key string) {
	old, had := m[key]
	if !had {
		return
	}
	a.undo = append(a.undo, undoRecord{m: m, key: key, old: old, had: true})
	delete(m, key)
}

func (a *applier) rollback(mark int) {
	for i := len(a.undo) - 1; i >= mark; i-- {
		u := &a.undo[i]
		switch {
		case u.m != nil && u.had:
			u.m[u.key] = u.old
		case u.m != nil:
			delete(u.m, u.key)
		case u.l != nil:
			u.l[u.idx] = u.old
		default:
			a.root = u.root
		}
	}
	clear(a.undo[mark:])
	a.undo = a.undo[:mark]
}

func (a *applier) owns(p unsafe.Pointer) bool {
	for _, q := range a.owned {
		if q == p {
			return true
		}
	}
	return false
}

func mapPointer(m map[string]any) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&m)) }

func listPointer(l []any) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(l)) }

// writableMap returns m if this call made it, else a copy of m put in s.
func (a *applier) writableMap(s slot, m map[string]any) map[string]any {
	if a.owns(mapPointer(m)) {
		return m
	}
	c := maps.Clone(m)
	a.owned = append(a.owned, mapPointer(c))
	a.set(s, c)
	return c
}

// writableList returns l if this call made it, else a copy of l put in s.
func (a *applier) writableList(s slot, l []any) []any {
	if len(l) == 0 || a.owns(listPointer(l)) {
		return l
	}
	c := make([]any, len(l))
	copy(c, l)
	a.owned = append(a.owned, listPointer(c))
	a.set(s, c)
	return c
}

func (a *applier) newMap() map[string]any {
	m := map[string]any{}
	a.owned = append(a.owned, mapPointer(m))
	return m
}

// walk performs steps[i:] of pl on the value in s.
func (a *applier) walk(s slot, pl *plan, i int, val any, vars *Variables) *problem {
	cur, present := a.get(s)
	if i == len(pl.steps) {
		if !present || !equalValue(cur, val) {
			a.set(s, val)
		}
		return nil
	}
	st := &pl.steps[i]
	last := i == len(pl.steps)-1
	fail := func(err *problem) *problem { return err.at(pl.line, pl.stepCol(i)) }
	at := func() string { return Path(pl.steps[:i]).String() }
	switch st.Kind {
	case imagePart, maybeImagePart:
		// without a schema only a string is an image reference
		if _, isString := cur.(string); isString || st.Kind == imagePart {
			return a.setImagePart(s, cur, pl, val, pl.stepCol(i), fail)
		}
		fallthrough
	case Field:
		switch c := cur.(type) {
		case map[string]any:
			if last && pl.act == actDelete {
				if _, ok := c[st.Name]; ok {
					a.deleteKey(a.writableMap(s, c), st.Name)
				}
				return nil
			}
			m := a.writableMap(s, c)
			return a.walk(slot{m: m, key: st.Name}, pl, i+1, val, vars)
		case []any:
			// the field of every item
			for j := range c {
				if _, ok := c[j].(map[string]any); !ok {
					return fail(errorf(ErrType, "%s holds %s; it has no field %q", at(), describeValue(c[j]), st.Name))
				}
			}
			l := a.writableList(s, c)
			for j := range l {
				if err := a.walk(slot{l: l, idx: j}, pl, i, val, vars); err != nil {
					return err
				}
			}
			return nil
		case nil:
			if pl.act == actDelete {
				return nil
			}
			m := a.newMap()
			a.set(s, m)
			return a.walk(slot{m: m, key: st.Name}, pl, i+1, val, vars)
		default:
			return fail(errorf(ErrType, "%s is %s, not a map; it has no field %q", at(), describeValue(cur), st.Name))
		}
	case Index:
		switch c := cur.(type) {
		case []any:
			if st.Index >= len(c) {
				if pl.act == actDelete {
					return nil
				}
				return fail(errorf(ErrIndex, "index %d is past the end of %s (%d items)", st.Index, at(), len(c)))
			}
			if last && pl.act == actDelete {
				return a.deleteItems(s, cur, st, fail, at)
			}
			l := a.writableList(s, c)
			return a.walk(slot{l: l, idx: st.Index}, pl, i+1, val, vars)
		case map[string]any:
			if last && pl.act == actDelete {
				a.deleteKey(a.writableMap(s, c), st.Name)
				return nil
			}
			m := a.writableMap(s, c)
			return a.walk(slot{m: m, key: st.Name}, pl, i+1, val, vars)
		case nil:
			if pl.act == actDelete {
				return nil
			}
			return fail(errorf(ErrIndex, "%s does not exist; an index cannot create a list item (append with [-])", at()))
		default:
			return fail(errorf(ErrType, "%s is %s; an index needs a list", at(), describeValue(cur)))
		}
	case Select, All:
		switch c := cur.(type) {
		case []any:
			var l []any
			for j := range c {
				if st.Kind == Select && !matches(c[j], st) {
					continue
				}
				if l == nil {
					l = a.writableList(s, c)
				}
				if err := a.walk(slot{l: l, idx: j}, pl, i+1, val, vars); err != nil {
					return err
				}
			}
			if l == nil && st.Kind == Select && pl.act != actDelete {
				return fail(errorf(ErrNoMatch, "no item of %s matches %s", at(), selectorText(st.Key, st.Value)))
			}
			return nil
		case nil:
			if st.Kind == All || pl.act == actDelete {
				return nil
			}
			return fail(errorf(ErrNoMatch, "no item of %s matches %s: the list does not exist", at(), selectorText(st.Key, st.Value)))
		default:
			return fail(errorf(ErrType, "%s is %s; a selector needs a list", at(), describeValue(cur)))
		}
	case Append, InsertBefore, InsertAfter:
		return a.insert(s, cur, pl, st, val, vars, fail, at)
	case DeleteItems:
		return a.deleteItems(s, cur, st, fail, at)
	}
	return fail(errorf(ErrSyntax, "%s cannot appear here", Path{*st}.String()))
}

// matches reports whether a list item's field at st.Key equals st.Value
// as text.
func matches(item any, st *Segment) bool {
	v := item
	for _, k := range st.Key {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[k]; !ok {
			return false
		}
	}
	return textEquals(v, st.Value)
}

// insert adds an item to the list in s, or updates its twin in place
// (see twin).
func (a *applier) insert(s slot, cur any, pl *plan, st *Segment, val any, vars *Variables, fail func(*problem) *problem, at func() string) *problem {
	var list []any
	switch c := cur.(type) {
	case []any:
		list = c
	case nil:
	default:
		return fail(errorf(ErrType, "%s is %s; %s needs a list", at(), describeValue(cur), Path{*st}.String()))
	}
	item := val
	if pl.build != nil {
		built, err := a.build(pl, vars)
		if err != nil {
			return err
		}
		item = built
	}
	if j := twin(list, item, pl.mergeKey); j >= 0 {
		return a.updateTwin(s, list, j, pl, item, vars)
	}
	pos, err := insertPos(list, st, at)
	if err != nil {
		return fail(err)
	}
	out := make([]any, 0, len(list)+1)
	out = append(out, list[:pos]...)
	out = append(out, item)
	out = append(out, list[pos:]...)
	a.owned = append(a.owned, listPointer(out))
	a.set(s, out)
	return nil
}

// insertPos is where an insertion puts its item in list.
func insertPos(list []any, st *Segment, at func() string) (int, *problem) {
	switch {
	case st.Kind == Append || st.Last:
		return len(list), nil
	case st.ByMatch:
		for j := range list {
			if !matches(list[j], st) {
				continue
			}
			if st.Kind == InsertAfter {
				j++
			}
			return j, nil
		}
		return 0, errorf(ErrNoMatch, "no item of %s matches %s", at(), selectorText(st.Key, st.Value))
	case st.Kind == InsertBefore:
		if st.Index > len(list) {
			return 0, errorf(ErrIndex, "cannot insert before index %d: %s has %d items", st.Index, at(), len(list))
		}
		return st.Index, nil
	}
	if st.Index >= len(list) {
		return 0, errorf(ErrIndex, "cannot insert after index %d: %s has %d items", st.Index, at(), len(list))
	}
	return st.Index + 1, nil
}

// build makes the item of an insertion header from its entries.
func (a *applier) build(pl *plan, vars *Variables) (map[string]any, *problem) {
	holder := []any{a.newMap()}
	a.owned = append(a.owned, listPointer(holder))
	if err := a.applyBuild(slot{l: holder, idx: 0}, pl, vars); err != nil {
		return nil, err
	}
	return holder[0].(map[string]any), nil
}

// applyBuild applies an insertion header's entries to the item in s.
func (a *applier) applyBuild(s slot, pl *plan, vars *Variables) *problem {
	for _, sub := range pl.build {
		val, err := sub.resolveValue(vars)
		if err != nil {
			return err.orAt(sub.line, sub.valueCol)
		}
		if e := a.walk(s, sub, 0, val, vars); e != nil {
			return e
		}
	}
	return nil
}

// deleteItems removes the items of the list in s that st selects.
func (a *applier) deleteItems(s slot, cur any, st *Segment, fail func(*problem) *problem, at func() string) *problem {
	var list []any
	switch c := cur.(type) {
	case []any:
		list = c
	case nil:
		return nil
	default:
		return fail(errorf(ErrType, "%s is %s; %s needs a list", at(), describeValue(cur), Path{*st}.String()))
	}
	keep := func(j int) bool {
		switch {
		case st.Last:
			return false
		case st.ByMatch:
			return !matches(list[j], st)
		}
		return j != st.Index
	}
	n := 0
	for j := range list {
		if keep(j) {
			n++
		}
	}
	if n == len(list) {
		return nil
	}
	out := make([]any, 0, n)
	for j := range list {
		if keep(j) {
			out = append(out, list[j])
		}
	}
	a.owned = append(a.owned, listPointer(out))
	a.set(s, out)
	return nil
}

// setImagePart replaces one part of the image reference in s; the
// reference is checked when the file is done with the object.
func (a *applier) setImagePart(s slot, cur any, pl *plan, val any, col int, fail func(*problem) *problem) *problem {
	var old string
	switch c := cur.(type) {
	case string:
		old = c
	case nil:
	default:
		return fail(errorf(ErrType, "%s is %s; image parts need a string image", Path(pl.steps[:len(pl.steps)-1]).String(), describeValue(cur)))
	}
	text := ""
	if pl.act != actDelete {
		if pl.raw != "" && pl.tmpl == nil {
			text = pl.raw
		} else if val != nil {
			var ok bool
			if text, ok = scalarText(val); !ok {
				return fail(errorf(ErrValue, "an image part is text, not %s", describeValue(val)))
			}
		}
	}
	ref, err := setImageRefPart(old, pl.steps[len(pl.steps)-1].Name, text)
	if err != nil {
		return fail(err)
	}
	if ref != old || cur == nil {
		a.set(s, ref)
	}
	if s.m != nil && splitImage(ref).path == "" {
		// not a reference yet: checked when the file is done
		a.images = append(a.images, imageWrite{m: s.m, key: s.key, line: pl.line, col: col})
	}
	return nil
}

func describeValue(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a map"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	if _, ok := number(v); ok {
		return "a number"
	}
	return "a value"
}
