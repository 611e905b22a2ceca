package kpatch

import (
	"slices"
	"strings"
)

// Patch is a compiled patch file. It is immutable and safe for concurrent
// use: parse and compile once, apply to any number of objects.
type Patch struct {
	name     string
	file     *File
	sections []*section
	kinds    []string
	vars     *Variables
}

type section struct {
	target    Target
	targetPos Position
	ops       []*operation
	merge     *mergeOp // a strategic or JSON merge patch instead of ops
	// checked is how many of each operation's schemas Compile and Check
	// hold the operation to: the current versions of the kind, which
	// come first (see docs/format.md).
	checked int
}

// operation is one entry, or one insertion or delete header, compiled for
// every API version of its kind that has a schema, and for kinds without.
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

// Internal segment kinds that only compiled plans hold.
const (
	imagePart      SegmentKind = 100 + iota // a part of the image reference in a string
	maybeImagePart                          // an image part if the value is a string, else a field
)

// plan is an operation resolved against one schema: the full path, the
// leaf's type and the value converted to it.
type plan struct {
	apiVersion string // the schema's; "" for the generic plan
	kind       string
	steps      []Segment
	act        action
	leaf       *typeNode
	value      any    // the converted constant
	raw        string // the constant's text when written plain, for text fields
	tmpl       *Value // the value, when it holds variables
	build      []*plan
	// mergeKey is the field that identifies the items of the list an
	// insertion adds to (its patchMergeKey); "" without one.
	mergeKey  string
	err       *problem // why this plan cannot apply to objects of this schema, placed
	valueCol  int      // where a variable's problem is reported
	line, col int
}

var stringNode = &typeNode{kind: tString, name: "string"}

// Compile compiles a parsed file. It reports, as an ErrorList of
// *ParseError in file order, every problem it can know without an object:
// a target that cannot match (a plural, short name or near miss of a
// built-in kind, a built-in API group without the kind), and for built-in
// kinds a path or constant value that the kind's current API versions do
// not accept. Custom resources' paths and values are not checked.
func Compile(f *File) (*Patch, error) {
	p := &Patch{name: f.Name, file: f}
	for _, m := range f.Merges {
		p.addKind(&m.Target)
		p.sections = append(p.sections, compileMerge(m))
	}
	for _, s := range f.Sections {
		p.addKind(&s.Target)
		p.sections = append(p.sections, compileSection(s))
	}
	if errs := p.problems(); len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

func (p *Patch) addKind(t *Target) {
	if kind := strings.ToLower(t.Kind); !slices.Contains(p.kinds, kind) {
		p.kinds = append(p.kinds, kind)
	}
}

// targetSchemas returns the schemas of the versions a target can match,
// current versions first, and how many are current (all of them when
// none is).
func targetSchemas(t *Target) ([]*kindSchema, int) {
	var kinds []*kindSchema
	current := 0
	for _, ks := range schemasFor(t.Kind) {
		if t.groupMatches(ks.gvk.Group, ks.gvk.Version) {
			kinds = append(kinds, ks)
			if !ks.superseded {
				current++
			}
		}
	}
	if current == 0 {
		current = len(kinds)
	}
	return kinds, current
}

// compileSection compiles a header's entries, or its insertion or delete.
func compileSection(s *Section) *section {
	kinds, current := targetSchemas(&s.Target)
	cs := &section{target: s.Target, targetPos: s.targetPos, checked: current}
	if cs.targetPos.Line == 0 { // a section built without the parser
		cs.targetPos = Position{Line: s.Line, Column: s.Col}
	}
	compileOp := func(build func(ks *kindSchema) *plan) {
		op := &operation{generic: build(nil)}
		for _, ks := range kinds {
			pl := build(ks)
			pl.apiVersion, pl.kind = ks.apiVersion, ks.gvk.Kind
			op.schemas = append(op.schemas, pl)
		}
		cs.ops = append(cs.ops, op)
	}
	last := Segment{Kind: Field}
	if len(s.Path) > 0 {
		last = s.Path[len(s.Path)-1]
	}
	switch {
	case last.isInsertion():
		compileOp(func(ks *kindSchema) *plan { return compileInsertSection(ks, s) })
	case last.Kind == Delete || last.Kind == DeleteItems:
		compileOp(func(ks *kindSchema) *plan { return compileEntry(ks, s, nil) })
	default:
		for _, e := range s.Entries {
			compileOp(func(ks *kindSchema) *plan { return compileEntry(ks, s, e) })
		}
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
// registry can index patches by kind.
func (p *Patch) Kinds() []string { return slices.Clone(p.kinds) }

// WithVariables returns the patch bound to vars, which its ${...}
// references read. The patch and vars must not be changed afterwards.
// It does not check the values: Bind does.
func (p *Patch) WithVariables(vars *Variables) *Patch {
	q := *p
	q.vars = vars
	return &q
}

// combine joins a header's path and an entry's key into the steps of a
// plan, and finds the action: [delete] and [delete=...] delete,
// insertions insert, anything else sets.
func combine(hdr, key Path) ([]Segment, action) {
	steps := make([]Segment, 0, len(hdr)+len(key)+2)
	for _, s := range hdr {
		s.header = true
		steps = append(steps, s)
	}
	act := actSet
	if len(key) > 0 && key[0].Kind == Delete {
		act, key = actDelete, key[1:]
	}
	steps = append(steps, key...)
	if n := len(steps); n > 0 {
		switch last := steps[n-1]; {
		case last.Kind == Delete:
			act, steps = actDelete, steps[:n-1]
		case last.Kind == DeleteItems:
			act = actDelete
		case last.isInsertion() && act != actDelete:
			act = actInsert
		}
	}
	if act == actDelete && len(steps) > 0 {
		// X[sel][delete] removes items: the same as X[delete=sel]. An
		// index stays: on a list it removes the item, on a map the key.
		last := &steps[len(steps)-1]
		switch last.Kind {
		case Select:
			last.Kind, last.ByMatch = DeleteItems, true
		case All:
			last.Kind, last.Last = DeleteItems, true
		}
	}
	return steps, act
}

// compileEntry resolves one entry (or, with e nil, a delete header).
func compileEntry(ks *kindSchema, s *Section, e *Entry) *plan {
	var key Path
	pl := &plan{line: s.Line, col: s.Col}
	if e != nil {
		key = e.Key
		pl.line, pl.col = e.Line, e.Col
	}
	pl.steps, pl.act = combine(s.Path, key)
	if len(pl.steps) == 0 {
		pl.fail(pl.col, errorf(ErrSyntax, "[delete] needs a path: deleting a whole object is not a patch"))
		return pl
	}
	if pl.act == actDelete && pl.steps[len(pl.steps)-1].isInsertion() {
		pl.fail(pl.col, errorf(ErrSyntax, "an insertion cannot be deleted"))
		return pl
	}
	pl.resolve(ks, s)
	if pl.err == nil && e != nil && pl.act != actDelete {
		pl.setValue(&e.Value, e.ValueCol)
	}
	return pl
}

// compileInsertSection resolves an insertion header and the entries that
// build its item.
func compileInsertSection(ks *kindSchema, s *Section) *plan {
	pl := &plan{line: s.Line, col: s.Col}
	pl.steps, pl.act = combine(s.Path, nil)
	if pl.resolve(ks, s); pl.err != nil {
		return pl
	}
	for _, e := range s.Entries {
		sub := &plan{line: e.Line, col: e.Col}
		sub.steps, sub.act = combine(nil, e.Key)
		sub.resolveTypes(pl.leaf)
		if sub.err == nil && sub.act != actDelete {
			sub.setValue(&e.Value, e.ValueCol)
		}
		if sub.err != nil && pl.err == nil {
			pl.err = sub.err
		}
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

// stepCol is the column a problem at step i is reported at: the segment's
// own column when it is in the entry's key, else the entry's.
func (pl *plan) stepCol(i int) int {
	if i < len(pl.steps) && !pl.steps[i].header && pl.steps[i].Col > 0 {
		return pl.steps[i].Col
	}
	return pl.col
}

// valueLeaf is the type a value is converted to: none for what may be an
// image part of a custom resource (its text is used as written).
func (pl *plan) valueLeaf() *typeNode {
	if n := len(pl.steps); n > 0 && pl.steps[n-1].Kind == maybeImagePart {
		return nil
	}
	return pl.leaf
}

// setValue converts a constant value to the leaf's type, or keeps a
// template for apply time.
func (pl *plan) setValue(v *Value, col int) {
	pl.valueCol = col
	if v.IsTemplate() || v.Tree != nil && treeHasVariables(v.Tree) {
		pl.tmpl = v
		return
	}
	if v.Tree != nil {
		val, err := coerceTree(v.Tree, pl.leaf, v.src, false)
		if err == nil && !finite(val) { // a Value built without the parser
			err = errorf(ErrValue, "the value holds an infinity or NaN, which JSON cannot carry")
		}
		if err != nil {
			pl.fail(col, err.prefixed(Path(pl.steps).String()))
			return
		}
		pl.value = val
		return
	}
	if !v.Quoted {
		pl.raw = v.Raw
	}
	val, err := coerce(v.Scalar, pl.valueLeaf(), pl.raw)
	if err == nil {
		err = pl.checkImagePart(val)
	}
	if err == nil && !finite(val) { // a Value built without the parser
		err = errorf(ErrValue, "%v cannot be held in a Kubernetes object (JSON has no infinity or NaN)", val)
	}
	if err != nil {
		pl.fail(col, err.prefixed(Path(pl.steps).String()))
		return
	}
	pl.value = val
}

// planFor returns the plan for an object's API version and kind.
func (op *operation) planFor(apiVersion, kind string) *plan {
	for _, pl := range op.schemas {
		if pl.apiVersion == apiVersion && pl.kind == kind {
			return pl
		}
	}
	return op.generic
}
