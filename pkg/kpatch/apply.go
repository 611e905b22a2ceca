package kpatch

import (
	"context"
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
	// Budget bounds the work of the call; see Budget.
	Budget Budget
	// NewMap, if set, makes the maps the call copies and builds: empty,
	// with room for size members. A webhook lends them from a pool for
	// the time of a request (the result holds them). Nil: make.
	NewMap func(size int) map[string]any
	// NewList, if set, makes the lists the call copies and builds:
	// empty, with room for size items, which it never outgrows (an
	// append past them makes another). A webhook cuts them from a slab
	// lent for the time of a request, as NewMap's maps. Nil: make.
	NewList func(size int) []any
	// Identity, if set, is the object as the patches match it, instead
	// of its own apiVersion, kind, name and namespace: a run of files
	// matches the object as it was when the run started, so that a file
	// that renames it leaves the later files matching the old name.
	Identity *ObjectRef
	// Schemas, if set, returns the schema of a custom resource (an API
	// version and kind without Go types), or nil when it knows none:
	// what the files write into such an object then takes its fields'
	// types, as it does in a built-in kind (a string field receives a
	// value's text as written, an integer field an integer or the file
	// fails).
	Schemas func(apiVersion, kind string) *CustomResourceSchema
	// Expressions, if set, evaluates the CEL values (${cel: EXPR}) and
	// foreach lists of the files on the object, with the variables and
	// the budget of their conditions. Nil: object is the object given,
	// request an offline CREATE of it, oldObject and namespaceObject
	// null, and the call has one request's budget.
	Expressions ExpressionEvaluator
	// EvalItem, if set, evaluates a section's per-item condition (one
	// that reads item: Condition.Item) on one item of the list its header
	// walks, for the file bound to vars; where names the item (its list's
	// path and its name or index), for reports. An error leaves the
	// file out of the object, as an entry that fails does; it is wrapped
	// as the problem's cause. Nil: every item holds (the conditions are
	// not evaluated, as Apply does not evaluate the others).
	EvalItem func(c *Condition, vars *Variables, item any, where string) (bool, error)
}

// custom is the schema of the custom resource ref: its CRD's, when
// Schemas knows it, else the one every resource has (its metadata); nil
// for a built-in kind.
func (o *ApplyOptions) custom(ref *ObjectRef) *typeNode {
	if schemaOf(ref.APIVersion, ref.Kind) != nil {
		return nil
	}
	if o.Schemas != nil {
		if s := o.Schemas(ref.APIVersion, ref.Kind); s != nil {
			return s.root
		}
	}
	return anyResource()
}

// identity is the object as the patches match it (Identity).
func (o *ApplyOptions) identity(obj map[string]any) ObjectRef {
	if o.Identity != nil {
		return *o.Identity
	}
	return RefOf(obj, o.Namespace)
}

// Apply applies the patches in order to obj and returns the patched
// object. obj is never modified: the result shares the parts that did not
// change with obj, so treat both as read-only. A patch that fails on the
// object leaves no trace in the result; its errors (*ApplyError) are
// returned in an ErrorList, and the other patches still apply.
func Apply(obj map[string]any, patches []*Patch, opts ApplyOptions) (map[string]any, error) {
	return apply(context.Background(), obj, patches, opts)
}

func apply(ctx context.Context, obj map[string]any, patches []*Patch, opts ApplyOptions) (map[string]any, error) {
	ref := opts.identity(obj)
	a := appliers.Get().(*applier)
	a.root, a.makeMap, a.makeList, a.custom, a.evalItem = obj, opts.NewMap, opts.NewList, opts.custom(&ref), opts.EvalItem
	a.ctx, a.input, a.exprs = ctx, obj, opts.Expressions
	a.meter.start(ctx, opts.Budget)
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

// RefOf identifies an unstructured object as Apply matches it: its
// apiVersion, kind, metadata.name (or generateName) and
// metadata.namespace, with namespace assumed when the object has none (as
// on an admission request).
func RefOf(obj map[string]any, namespace string) ObjectRef {
	ref := ObjectRef{Namespace: namespace}
	ref.APIVersion, _ = obj["apiVersion"].(string)
	ref.Kind, _ = obj["kind"].(string)
	if md, ok := obj["metadata"].(map[string]any); ok {
		ref.Name, _ = md["name"].(string)
		if ref.Name == "" {
			ref.GenerateName, _ = md["generateName"].(string)
		}
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
	owned  map[unsafe.Pointer]int // the maps and lists this call made, by address, with the file that made them
	file   int                    // the file being applied, counted by a Sequence
	undo   []undoRecord
	images []imageWrite // image references set by parts, checked when the file is done
	meter  meter        // the budget of the call
	// expanded is what the values built from variables of the file being
	// applied take.
	expanded expansion
	// valueBytes is the size of the value the plan being run writes.
	valueBytes int
	// makeMap is ApplyOptions.NewMap, makeList ApplyOptions.NewList.
	makeMap  func(size int) map[string]any
	makeList func(size int) []any
	// custom is the schema of the object, a custom resource
	// (ApplyOptions.Schemas); nil for a built-in kind.
	custom *typeNode
	// item is the schema of the item an insertion is building (building
	// set), below custom, while it is built: the steps of its entries
	// start there.
	item     *typeNode
	building bool
	// ctx is the call's; input the object it was given, exprs its
	// ApplyOptions.Expressions, or, once the first CEL value made it, the
	// evaluator of the object given (offlineExpressions).
	ctx   context.Context
	input map[string]any
	exprs ExpressionEvaluator
	// evalItem is ApplyOptions.EvalItem; itemHeld what the per-item
	// condition of the section being applied gave, by the item's
	// position (cursor.pos).
	evalItem func(c *Condition, vars *Variables, item any, where string) (bool, error)
	itemHeld map[string]bool
	// filtering is set while a section whose target names no single
	// object applies: there a selector that matches no item, or an
	// insertion anchored on such an item, does nothing (see
	// Target.Single).
	filtering bool
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

// ownedKept is how many addresses an applier's set of owned containers
// may have held and still be cleared for the next call rather than
// dropped: clearing a map costs its capacity.
const ownedKept = 1024

func (a *applier) reset() {
	if len(a.owned) > ownedKept {
		a.owned = nil
	} else {
		clear(a.owned)
	}
	clear(a.undo)
	a.undo = a.undo[:0]
	clear(a.images)
	a.images = a.images[:0]
	a.root, a.makeMap, a.makeList, a.custom, a.item, a.building = nil, nil, nil, nil, nil, false
	a.ctx, a.input, a.exprs = nil, nil, nil
	a.evalItem, a.itemHeld = nil, nil
	a.meter = meter{}
	a.file = 0
	a.filtering = false
}

// applyPatch applies one file atomically and appends its errors. A file
// that fails, or leaves an image reference it built invalid, is rolled
// back.
func (a *applier) applyPatch(p *Patch, ref *ObjectRef, errs ErrorList) ErrorList {
	mark, images, before := len(a.undo), len(a.images), len(errs)
	a.expanded = expansion{cel: a}
	if p.vars != nil {
		a.expanded.params = p.vars.Values
	}
	a.meter.checkContext()
	for i, s := range p.sections {
		if !s.target.Matches(ref) || p.left(i) {
			continue
		}
		if a.meter.spent != nil {
			if len(errs) == before { // spent before this file, or where it did not look
				errs = append(errs, a.notApplied(s).applyError(p.name, ref))
			}
			break
		}
		if errs = a.applySection(s, ref, p, errs); a.expanded.over() {
			break
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

// notApplied is the problem of a file that the budget left out, at the
// target of its section s.
func (a *applier) notApplied(s *section) *problem {
	q := *a.meter.spent
	q.msg = "not applied: " + q.msg
	return q.at(s.targetPos.Line, s.targetPos.Column)
}

// applySection applies one section of p and appends its errors.
func (a *applier) applySection(s *section, ref *ObjectRef, p *Patch, errs ErrorList) ErrorList {
	clear(a.itemHeld)
	a.filtering = !s.target.Single()
	defer func() { a.filtering = false }()
	if s.merge != nil {
		if s.multi && s.merge.planFor(ref.APIVersion, ref.Kind).err != nil {
			return errs // the patch does not fit the object's kind
		}
		if e := a.mergePatch(s.merge, ref, p.vars); e != nil {
			errs = append(errs, e.applyError(p.name, ref))
		}
		return errs
	}
	if s.foreach != nil {
		return a.applyForeach(s, ref, p, errs)
	}
	return a.applyOps(s, ref, p, p.vars, errs)
}

// applyOps applies the operations of section s of p and appends their
// errors.
func (a *applier) applyOps(s *section, ref *ObjectRef, p *Patch, vars *Variables, errs ErrorList) ErrorList {
	for _, op := range s.ops {
		pl := s.planFor(op, ref)
		if pl == nil {
			continue
		}
		if e := a.run(pl, vars); e != nil {
			errs = append(errs, e.applyError(p.name, ref))
			if a.meter.spent != nil || a.expanded.over() {
				break // the file stops at its first entry past a limit
			}
		}
	}
	return errs
}

// run executes one plan from the root.
func (a *applier) run(pl *plan, vars *Variables) *problem {
	if pl.err != nil {
		return pl.err
	}
	var val any
	if !pl.itemValue() { // else resolved per item (cursor.enter)
		v, err := pl.resolveValue(a.leafOf(pl, a.custom), vars, &a.expanded)
		if err != nil {
			return err.orAt(pl.line, pl.valueCol)
		}
		a.setValueBytes(pl, plainValue(v))
		val = v
	}
	if err := a.walk(slot{}, startCursor(pl, val, vars)); err != nil {
		return err.orAt(pl.line, pl.col)
	}
	return nil
}

// leafOf is the type of what pl writes: its leaf's, or for a plan
// resolved without a schema, what its steps reach in the schema below
// custom (the object's, a custom resource's; nil: none).
func (a *applier) leafOf(pl *plan, custom *typeNode) *typeNode {
	if pl.typed || custom == nil {
		return pl.leaf
	}
	return customLeaf(custom, pl.steps)
}

// resolveValue returns the plan's value converted to leaf (pl.leaf, or a
// custom resource's field: leafOf), reading variables if it has any; ex
// counts the bytes such a value takes. A value that a custom resource's
// schema does not take is a refusal (refusedBySchema).
func (pl *plan) resolveValue(leaf *typeNode, vars *Variables, ex *expansion) (any, *problem) {
	v, err := pl.valueAs(leaf, vars, ex)
	if err != nil && leaf != pl.leaf {
		err = refusedBySchema(err)
	}
	return v, err
}

// valueAs is resolveValue without the mark of a refusal.
func (pl *plan) valueAs(leaf *typeNode, vars *Variables, ex *expansion) (any, *problem) {
	t := pl.tmpl
	if t == nil && leaf != pl.leaf {
		return pl.constantAs(leaf)
	}
	if t == nil {
		return pl.value, nil
	}
	if t.Tree != nil {
		tree, err := expandTree(t.Tree, vars, ex)
		if err != nil {
			return nil, err
		}
		out, err := coerceTree(tree, leaf, t.src)
		if err != nil {
			return nil, err.prefixed(pathText(pl.steps))
		}
		return out, nil
	}
	v, err := expandTemplate(t, vars, ex)
	if err != nil {
		return nil, err
	}
	if isNode(v) { // an array or object parameter, whole
		out, err := coerceTree(v, leaf, nil)
		if err != nil {
			return nil, err.prefixed(pathText(pl.steps))
		}
		return out, nil
	}
	if s, ok := v.(sourced); ok && s.value == nil && pl.imagePart() {
		v = nil // a null removes an image part
	} else if ok && pl.maybeImagePart() && leaf == nil {
		return s, nil // the object tells: an image part takes the text, a field the value
	}
	out, err := coerce(v, leaf, "")
	if err != nil {
		return nil, errorf(err.err, "%s: %s (from %s)", pathText(pl.steps), err.msg, t.Raw)
	}
	return out, nil
}

// expandTemplate reads a template's variables: the variable's own value
// for a value that is exactly one, else the text with the variables
// spliced in, whose size is counted by ex before it is built. A variable
// whose values file wrote it otherwise than it prints (1.0, yes) is
// spliced both ways: the text as written, for a string field, and as
// printed, for any other (sourced).
// A CEL value that is the whole value takes its own type, as a variable
// does.
func expandTemplate(t *Value, vars *Variables, ex *expansion) (any, *problem) {
	if ref := t.wholeVar(); ref != nil && ref.CEL != nil {
		return celWhole(ref, vars, ex)
	}
	if ref := t.wholeVar(); ref != nil {
		return lookupWhole(vars, ref, ex)
	}
	printed, written := make([]string, len(t.Parts)), make([]string, len(t.Parts))
	differ, n := false, 0
	for i, part := range t.Parts {
		printed[i], written[i] = part.Text, part.Text
		if part.Var != nil && part.Var.CEL != nil {
			text, err := celText(part.Var, vars, ex)
			if err != nil {
				return nil, err
			}
			printed[i], written[i] = text, text
		} else if part.Var != nil {
			val, err := lookup(vars, part.Var)
			if err != nil {
				return nil, err
			}
			printed[i], _ = scalarText(val)
			written[i] = printed[i]
			if text, ok := vars.TextOf(part.Var.Scope, part.Var.Path, val); ok && text != printed[i] {
				written[i], differ = text, true
			}
		}
		n += max(len(printed[i]), len(written[i]))
	}
	if err := ex.take(n); err != nil {
		return nil, err
	}
	if !differ {
		return strings.Join(printed, ""), nil
	}
	return sourced{strings.Join(printed, ""), strings.Join(written, "")}, nil
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

// owns reports whether this call made the map or list at p, and so may
// change it in place.
func (a *applier) owns(p unsafe.Pointer) bool {
	_, ok := a.owned[p]
	return ok
}

// own records that this call made the map or list at p.
func (a *applier) own(p unsafe.Pointer) {
	if a.owned == nil {
		a.owned = map[unsafe.Pointer]int{}
	}
	a.owned[p] = a.file
}

func mapPointer(m map[string]any) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&m)) }

func listPointer(l []any) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(l)) }

// writableMap returns m if this call made it, else a copy of m put in s.
func (a *applier) writableMap(s slot, m map[string]any) map[string]any {
	if a.owns(mapPointer(m)) {
		return m
	}
	a.meter.count(len(m), 0)
	var c map[string]any
	if a.makeMap == nil {
		c = maps.Clone(m)
	} else {
		c = a.makeMap(len(m) + 1) // room for the member the write may add
		for k, v := range m {
			c[k] = v
		}
	}
	a.own(mapPointer(c))
	a.set(s, c)
	return c
}

// writableList returns l if this call made it, else a copy of l put in s.
func (a *applier) writableList(s slot, l []any) []any {
	if len(l) == 0 || a.owns(listPointer(l)) {
		return l
	}
	a.meter.count(len(l), 0)
	c := a.newList(len(l))[:len(l)]
	copy(c, l)
	a.own(listPointer(c))
	a.set(s, c)
	return c
}

// newList is an empty list with room for size items, made by makeList
// when set.
func (a *applier) newList(size int) []any {
	if a.makeList == nil || size == 0 {
		return make([]any, 0, size)
	}
	return a.makeList(size)
}

func (a *applier) newMap() map[string]any {
	var m map[string]any
	if a.makeMap == nil {
		m = map[string]any{}
	} else {
		m = a.makeMap(0)
	}
	a.own(mapPointer(m))
	return m
}

// walk performs the steps of c's plan from c's on the value in s.
func (a *applier) walk(s slot, c cursor) *problem {
	if a.meter.count(1, 0); a.meter.spent != nil {
		return a.meter.spent
	}
	cur, present := a.get(s)
	pl := c.pl
	if c.i == len(pl.steps) {
		if pl.skipPresent(cur, present) {
			return nil
		}
		if !present || !equalValue(cur, c.val) {
			a.meter.count(0, a.valueBytes)
			a.set(s, c.val)
		}
		return nil
	}
	return pl.steps[c.i].apply(a, s, cur, c)
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
