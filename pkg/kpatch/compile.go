package kpatch

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Patch is a compiled patch file. It is immutable and safe for concurrent
// use: parse and compile once, apply to any number of objects.
type Patch struct {
	name     string
	file     *File
	sections []*section
	kinds    []string
	vars     *Variables
	lazy     *lazyFacts // shared by the patch's bindings
	size     int        // see Size
	conds    []*Condition
	// expressions says that it has CEL expressions (Expressions)
	expressions bool
	// managedFields says that it may read or write the object's
	// metadata.managedFields (ReadsManagedFields)
	managedFields bool
	leave         []bool // the sections left out (Without)
	// specificity is the file's (Specificity), found when it compiles
	specificity Specificity
	// headers are the targets of its merge entries and headers
	// (HeaderTargets)
	headers []*Target
}

// lazyFacts are what a compiled patch computes on first use.
type lazyFacts struct {
	writesOnce sync.Once
	writes     []write // the constant fields it sets, for Conflicts
}

type section struct {
	target    Target
	targetPos Position
	kinds     []*kindSchema // the schemas of the versions the target can match
	ops       []*operation
	merge     *mergeOp // a strategic or JSON merge patch instead of ops
	// foreach, when set, applies ops once per element of a list.
	foreach *foreach
	// required are the entries written ${required}: checked, not applied
	required []*operation
	// checked is how many of each operation's schemas Compile and Check
	// hold the operation to: the current versions of the kind, which
	// come first (see docs/format.md).
	checked int
	// multi marks a target of several kinds (a kind glob or set): an
	// operation that does not resolve for an object's kind is skipped on
	// that object. byGVK indexes kinds by API version and kind.
	multi bool
	byGVK map[[2]string]int
}

// operation is one entry, or one insertion or delete header, compiled for
// every API version of its kind that has a schema (schemas: one plan for
// each of its section's kinds; versions whose plans come out alike share
// one), and for kinds without.
type operation struct {
	schemas []*plan
	generic *plan
}

// action is what a plan does at the end of its path.
type action uint8

const (
	actSet action = iota
	actDelete
	actInsert
)

// plan is an operation resolved against one schema: the full path, the
// leaf's type and the value converted to it.
type plan struct {
	typed bool // resolved against a schema; false for the generic plan
	act   action
	// ifAbsent sets the value only where the object holds none: an
	// entry whose key ends in `?`.
	ifAbsent bool
	// buildReadsItem says that an entry of build reads ${item}: the walk
	// binds the item its path selects for them (readsItem).
	buildReadsItem bool
	steps          []step
	leaf           *typeNode
	value          any    // the converted constant
	raw            string // the constant's text when written plain, for text fields
	// src places the problems of a constant map or list that no schema
	// typed at compile time (constantAs).
	src   *treeSource
	tmpl  *Value // the value, when it holds variables
	build []*plan
	// mergeKey is the field that identifies the items of the list an
	// insertion adds to (its patchMergeKey); "" without one.
	mergeKey string
	err      *problem // why this plan cannot apply to objects of this schema, placed
	valueCol int      // where a variable's problem is reported
	// valueBytes is the size of the constant value as JSON text.
	valueBytes int
	line, col  int
	// items is what the plan does with the items it walks (item.go); nil
	// when it reads no item.
	items *itemUse
}

var stringNode = &typeNode{kind: tString, name: "string"}

// Compile compiles a parsed file. It reports, as an ErrorList of
// *ParseError in file order, every problem it can know without an object:
// a target that cannot match (a plural, short name or near miss of a
// built-in kind, a built-in API group without the kind), and for built-in
// kinds a path or constant value that the kind's current API versions do
// not accept. Custom resources' paths and values are not checked.
func Compile(f *File) (*Patch, error) {
	p := &Patch{name: f.Name, file: f, lazy: &lazyFacts{}}
	for _, m := range f.Merges {
		p.addKind(&m.Target)
		p.sections = append(p.sections, compileMerge(m))
	}
	for _, s := range f.Sections {
		p.addKind(&s.Target)
		p.sections = append(p.sections, compileSection(s))
	}
	errs := p.problems()
	cerrs := p.compileConditions(f, len(f.Merges))
	cerrs = append(cerrs, p.compileForeach(f, len(f.Merges))...)
	if len(cerrs) > 0 {
		errs = append(errs, cerrs...)
		sortErrors(errs)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	p.size = compiledSize(p)
	p.expressions = len(p.Expressions()) > 0
	p.managedFields = p.mayReachManagedFields()
	p.specificity = p.leastSpecific()
	p.headers = make([]*Target, 0, len(f.Merges)+len(f.Sections)) // never nil: a patch file has kpatch targets
	for _, m := range f.Merges {
		p.headers = append(p.headers, &m.Target)
	}
	for _, s := range f.Sections {
		p.headers = append(p.headers, &s.Target)
	}
	return p, nil
}

// HeaderTargets are the targets of the patch's merge entries and
// headers, in file order, found once when it compiles. The caller must
// not modify them.
func (p *Patch) HeaderTargets() []*Target { return p.headers }

func (p *Patch) addKind(t *Target) {
	for _, kind := range t.targetKinds() {
		if !slices.Contains(p.kinds, kind) {
			p.kinds = append(p.kinds, kind)
		}
	}
}

// targetSchemas returns the schemas of the versions a target can match,
// current versions first, and how many are current. A kind none of
// whose matched versions is current is held to all of them.
func targetSchemas(t *Target) ([]*kindSchema, int) {
	var current, rest []*kindSchema
	for _, kind := range t.builtinKinds() {
		var mine []*kindSchema
		n := 0
		for _, ks := range schemasFor(kind) {
			if t.groupMatches(ks.gvk.Group, ks.gvk.Version) && (t.kindForm() != kindSet || ks.workload) {
				mine = append(mine, ks)
				if !ks.superseded {
					n++
				}
			}
		}
		if n == 0 {
			n = len(mine)
		}
		current, rest = append(current, mine[:n]...), append(rest, mine[n:]...)
	}
	return append(current, rest...), len(current)
}

// builtinKinds are the lower-case built-in kinds a target may match (for
// one kind, the kind whether built in or not).
func (t *Target) builtinKinds() []string {
	if t.kindForm() == kindOne {
		return []string{strings.ToLower(t.Kind)}
	}
	kinds := t.targetKinds()
	if n := len(kinds); n > 0 && kinds[n-1] == AnyKind {
		kinds = kinds[:n-1]
	}
	return kinds
}

// newSection is a section of the target over its kinds' schemas.
func newSection(t Target, pos Position, kinds []*kindSchema, current int) *section {
	s := &section{target: t, targetPos: pos, kinds: kinds, checked: current, multi: t.kindForm() != kindOne}
	if s.multi {
		s.byGVK = make(map[[2]string]int, len(kinds))
		for i, ks := range kinds {
			s.byGVK[[2]string{ks.apiVersion, ks.gvk.Kind}] = i
		}
	}
	return s
}

// compileSection compiles a header's entries, or its insertion or delete.
func compileSection(s *Section) *section {
	kinds, current := targetSchemas(&s.Target)
	cs := newSection(s.Target, s.targetPos, kinds, current)
	if cs.targetPos.Line == 0 { // a section built without the parser
		cs.targetPos = Position{Line: s.Line, Column: s.Col}
	}
	compileOp := func(build func(ks *kindSchema) *plan) {
		op := &operation{generic: build(nil)}
		if len(kinds) > 0 {
			op.schemas = make([]*plan, 0, len(kinds))
		}
		for _, ks := range kinds {
			pl := build(ks)
			pl.typed = true
			op.schemas = append(op.schemas, op.shared(pl))
		}
		cs.ops = append(cs.ops, op)
	}
	hdr, ct := headerSteps(s.Path), newCELTemplates(s)
	last := Segment{Kind: Field}
	if len(s.Path) > 0 {
		last = s.Path[len(s.Path)-1]
	}
	switch {
	case last.isInsertion():
		r, build := combine(s.Path, hdr, nil), entryRoutes(s.Entries)
		compileOp(func(ks *kindSchema) *plan { return compileInsertSection(ks, s, &r, build, ct) })
	case last.Kind == Delete || last.Kind == DeleteItems:
		r := combine(s.Path, hdr, nil)
		compileOp(func(ks *kindSchema) *plan { return compileEntry(ks, s, nil, &r, ct) })
	default:
		for _, e := range s.Entries {
			r := combine(s.Path, hdr, e.Key)
			compileOp(func(ks *kindSchema) *plan { return compileEntry(ks, s, e, &r, ct) })
		}
		cs.ops, cs.required = splitRequired(cs.ops, s.Entries)
	}
	return cs
}

// ParseAndCompile parses and compiles a file: a YAML patch file when its
// name ends in .yaml or .yml, else a .kpatch file.
func ParseAndCompile(name string, src []byte) (*Patch, error) {
	f, err := ParseAny(name, src)
	if err != nil {
		return nil, err
	}
	return Compile(f)
}

// Name returns the file name the patch was parsed from.
func (p *Patch) Name() string { return p.name }

// File returns the syntax tree the patch was compiled from.
func (p *Patch) File() *File { return p.file }

// Kinds returns the lower-case kinds the patch's headers target, so that a
// registry can index patches by kind: kind globs and @workload expanded
// to the built-in kinds they match, and AnyKind when a kind glob may also
// match custom resources (see MatchesKind).
func (p *Patch) Kinds() []string { return slices.Clone(p.kinds) }

// WithVariables returns the patch bound to vars, which its ${...}
// references read. The patch and vars must not be changed afterwards.
// It does not check the values: Bind does.
func (p *Patch) WithVariables(vars *Variables) *Patch {
	q := *p
	q.vars = vars
	return &q
}

// route is an entry's full path compiled once for every schema: the
// steps of the header and the key, and what the plan does at their end.
type route struct {
	steps []step
	act   action
	err   *problem // a [delete] where none can stand (a tree built without the parser)
}

// headerSteps compiles a header's path. Its steps report their problems
// at the entry: column 0.
func headerSteps(p Path) []step {
	steps := make([]step, len(p))
	for i := range p {
		steps[i] = newStep(&p[i], 0)
	}
	return steps
}

// combine joins a header's path (compiled: hdr) and an entry's key into
// a route, and finds the action: [delete] and [delete=...] delete,
// insertions insert, anything else sets.
func combine(hdrPath Path, hdr []step, key Path) route {
	r := route{act: actSet}
	if len(key) > 0 && key[0].Kind == Delete {
		r.act, key = actDelete, key[1:]
	}
	r.steps = make([]step, 0, len(hdr)+len(key))
	r.steps = append(r.steps, hdr...)
	for i := range key {
		r.steps = append(r.steps, newStep(&key[i], key[i].Col))
	}
	if last := lastSegment(hdrPath, key); last != nil {
		switch {
		case last.Kind == Delete:
			r.act, r.steps = actDelete, r.steps[:len(r.steps)-1]
		case last.Kind == DeleteItems:
			r.act = actDelete
		case last.isInsertion() && r.act != actDelete:
			r.act = actInsert
		}
	}
	if i := slices.Index(r.steps, nil); i >= 0 {
		r.err = errorf(ErrSyntax, "[delete] cannot appear here")
	}
	if n := len(r.steps); r.act == actDelete && n > 0 {
		r.steps[n-1] = deleteStep(r.steps[n-1])
	}
	return r
}

// lastSegment is the last segment of a header's path and a key.
func lastSegment(hdr, key Path) *Segment {
	switch {
	case len(key) > 0:
		return &key[len(key)-1]
	case len(hdr) > 0:
		return &hdr[len(hdr)-1]
	}
	return nil
}

// deleteStep is what the last step of a delete removes: X[sel][delete]
// removes items, the same as X[delete=sel], and X[*][delete] every item.
// An index stays: on a list it removes the item, on a map the key.
func deleteStep(st step) step {
	switch x := st.(type) {
	case *selectStep:
		return &deleteItemsStep{match: &x.match, col: x.col}
	case *allStep:
		return &deleteItemsStep{every: true, col: x.col}
	}
	return st
}

// entryRoutes compiles the keys of the entries that build an insertion
// header's item.
func entryRoutes(entries []*Entry) []route {
	routes := make([]route, len(entries))
	for i, e := range entries {
		routes[i] = combine(nil, nil, e.Key)
	}
	return routes
}

// compileEntry resolves one entry (or, with e nil, a delete header).
func compileEntry(ks *kindSchema, s *Section, e *Entry, r *route, ct *celTemplates) *plan {
	pl := &plan{line: s.Line, col: s.Col, act: r.act}
	if e != nil {
		pl.line, pl.col, pl.ifAbsent = e.Line, e.Col, e.IfAbsent
	}
	if !pl.checkRoute(r) {
		return pl
	}
	pl.resolve(ks, s, r)
	if pl.err == nil && e != nil && pl.act != actDelete && !e.Value.Required {
		pl.setValue(&e.Value, e.ValueCol, ct)
		if pl.itemValue() && ks != nil {
			pl.checkItemValue(&e.Value, itemNode(ks.root, pl.steps, pl.items.valueStep), e.ValueCol)
		}
	}
	return pl
}

// checkRoute fails the plan on what its route cannot do whatever the
// schema.
func (pl *plan) checkRoute(r *route) bool {
	switch {
	case r.err != nil:
		pl.fail(pl.col, r.err)
	case len(r.steps) == 0:
		pl.fail(pl.col, errorf(ErrSyntax, "[delete] needs a path: deleting a whole object is not a patch"))
	case pl.act == actDelete && isInsertion(r.steps[len(r.steps)-1]):
		pl.fail(pl.col, errorf(ErrSyntax, "an insertion cannot be deleted"))
	}
	return pl.err == nil
}

func isInsertion(st step) bool {
	_, ok := st.(*insertStep)
	return ok
}

// compileInsertSection resolves an insertion header and the entries that
// build its item (their routes: build).
func compileInsertSection(ks *kindSchema, s *Section, r *route, build []route, ct *celTemplates) *plan {
	pl := &plan{line: s.Line, col: s.Col, act: r.act}
	if pl.resolve(ks, s, r); pl.err != nil {
		return pl
	}
	for i, e := range s.Entries {
		sub := &plan{typed: ks != nil, line: e.Line, col: e.Col, act: build[i].act, ifAbsent: e.IfAbsent}
		if sub.checkRoute(&build[i]) {
			sub.steps = slices.Clone(build[i].steps)
			sub.resolveTypes(pl.leaf)
		}
		if sub.err == nil && e.Value.Required {
			sub.fail(e.ValueCol, errRequiredHere)
		}
		if sub.err == nil && sub.act != actDelete {
			sub.setValue(&e.Value, e.ValueCol, ct)
			if sub.itemOfInsertion(pl.steps) && ks != nil {
				sub.checkItemValue(&e.Value, itemNode(ks.root, pl.steps, innermostWalk(pl.steps, len(pl.steps))), e.ValueCol)
			}
		}
		if sub.err != nil && pl.err == nil {
			pl.err = sub.err
		}
		pl.buildReadsItem = pl.buildReadsItem || sub.tmpl != nil && sub.tmpl.readsItem()
		pl.build = append(pl.build, sub)
	}
	return pl
}

// dottedName is the header of s as it reads when the first segment of
// its path belongs to the target's name: [deployment.web.v2] meant for
// the Deployment web.v2 is [deployment.[web.v2]].
func dottedName(s *Section) string {
	if !s.Target.NameLiteral || len(s.Path) == 0 || s.Path[0].Kind != Field || s.Path[0].Bracketed {
		return ""
	}
	t := s.Target
	t.Name += "." + s.Path[0].Name
	return "[" + t.String() + "]"
}

// fail records the plan's first problem, at its line and col unless the
// problem has a line of its own.
func (pl *plan) fail(col int, err *problem) {
	if pl.err != nil {
		return
	}
	if err.line == 0 {
		err = err.at(pl.line, col)
	}
	pl.err = err
}

// stepCol is the column a problem at step i is reported at: the step's
// own column when it is in the entry's key, else the entry's.
func (pl *plan) stepCol(i int) int {
	if i < len(pl.steps) && pl.steps[i].column() > 0 {
		return pl.steps[i].column()
	}
	return pl.col
}

// lastStep is the plan's last step, or nil.
func (pl *plan) lastStep() step {
	if n := len(pl.steps); n > 0 {
		return pl.steps[n-1]
	}
	return nil
}

// imagePart reports whether the plan ends in an image part, or what may
// be one.
func (pl *plan) imagePart() bool {
	switch pl.lastStep().(type) {
	case imagePartStep, maybeImagePartStep:
		return true
	}
	return false
}

// maybeImagePart reports whether the plan ends in what may be an image
// part of a custom resource: the object tells when the plan runs.
func (pl *plan) maybeImagePart() bool {
	_, maybe := pl.lastStep().(maybeImagePartStep)
	return maybe
}

// setValue converts a constant value to the leaf's type, or keeps a
// template for apply time, its CEL values compiled by ct.
func (pl *plan) setValue(v *Value, col int, ct *celTemplates) {
	pl.valueCol = col
	if v.IsTemplate() || v.Tree != nil && treeHasVariables(v.Tree) {
		t, err := ct.of(v, pl)
		if err != nil {
			pl.fail(err.col, err)
			return
		}
		if pl.tmpl = t; t != v {
			pl.checkCEL()
		}
		if !ct.foreach {
			pl.setItemStep(t, pl.steps)
		}
		return
	}
	if v.Tree != nil {
		val, err := coerceTree(v.Tree, pl.leaf, v.src)
		if err == nil && !finite(val) { // a Value built without the parser
			err = errorf(ErrValue, "the value holds an infinity or NaN, which JSON cannot carry")
		}
		if err != nil {
			pl.fail(col, err.prefixed(pathText(pl.steps)))
			return
		}
		pl.value, pl.valueBytes = val, jsonSize(val)
		if pl.leaf == nil {
			pl.src = v.src // a custom resource's schema may type it (constantAs)
		}
		return
	}
	if !v.Quoted {
		pl.raw = v.Raw
	}
	val, err := coerce(v.Scalar, pl.leaf, pl.raw)
	if err == nil {
		err = pl.checkImagePart(val)
	}
	if err == nil && !finite(val) { // a Value built without the parser
		err = errorf(ErrValue, "%v cannot be held in a Kubernetes object (JSON has no infinity or NaN)", val)
	}
	if err != nil {
		pl.fail(col, err.prefixed(pathText(pl.steps)))
		return
	}
	pl.value, pl.valueBytes = val, jsonSize(val)
}

// constantAs converts the constant of a plan resolved without a schema
// to leaf, a custom resource's field (see leafOf), as setValue converts
// it for a built-in kind's.
func (pl *plan) constantAs(leaf *typeNode) (any, *problem) {
	var out any
	var err *problem
	if isNode(pl.value) {
		out, err = coerceTree(pl.value, leaf, pl.src)
	} else {
		out, err = coerce(pl.value, leaf, pl.raw)
	}
	if err != nil {
		return nil, err.prefixed(pathText(pl.steps))
	}
	return out, nil
}

// shared returns the plan of another version that is alike pl, or pl: the
// versions of a kind mostly share their fields' types, so that a patch
// keeps one plan per entry rather than one per version.
func (op *operation) shared(pl *plan) *plan {
	for _, q := range op.schemas {
		if q.alike(pl) {
			return q
		}
	}
	return pl
}

// alike reports whether two plans do the same: the same steps, type and
// value. Plans that build an item are never shared.
func (pl *plan) alike(q *plan) bool {
	return pl.act == q.act && pl.ifAbsent == q.ifAbsent && pl.leaf == q.leaf && pl.err == nil && q.err == nil &&
		pl.build == nil && q.build == nil && pl.tmpl == q.tmpl && pl.raw == q.raw &&
		pl.mergeKey == q.mergeKey && pl.line == q.line && pl.col == q.col && pl.valueCol == q.valueCol &&
		slices.Equal(pl.steps, q.steps) && equalValue(pl.value, q.value) && sameType(pl.value, q.value)
}

// sameType reports whether two scalars have the same Go type: 3 and 3.0
// are equal values, but a field of each type writes its own.
func sameType(a, b any) bool {
	return reflect.TypeOf(a) == reflect.TypeOf(b)
}

// planFor returns the plan for an object of the section's target, or nil
// when the operation is skipped on the object: a target of several kinds
// whose entry does not resolve for the object's kind.
func (s *section) planFor(op *operation, ref *ObjectRef) *plan {
	if i := s.schemaIndex(ref.APIVersion, ref.Kind); i >= 0 {
		if pl := op.schemas[i]; !s.multi || pl.err == nil {
			return pl
		}
		return nil
	}
	return op.generic
}

// schemaIndex is the index in s.kinds of an object's API version and
// kind, or -1.
func (s *section) schemaIndex(apiVersion, kind string) int {
	if s.byGVK != nil {
		if i, ok := s.byGVK[[2]string{apiVersion, kind}]; ok {
			return i
		}
		return -1
	}
	for i, ks := range s.kinds {
		if ks.apiVersion == apiVersion && ks.gvk.Kind == kind {
			return i
		}
	}
	return -1
}
