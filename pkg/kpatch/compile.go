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
	target Target
	ops    []*operation
	merge  *MergeEntry // a strategic or JSON merge patch instead of ops
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
	err        *problem // why this plan cannot apply to objects of this schema
	errCol     int
	valueCol   int // where a variable's problem is reported
	line, col  int
}

var stringNode = &typeNode{kind: tString, name: "string"}

// Compile compiles a parsed file.
func Compile(f *File) (*Patch, error) {
	p := &Patch{name: f.Name, file: f}
	addKind := func(t *Target) {
		if kind := strings.ToLower(t.Kind); !slices.Contains(p.kinds, kind) {
			p.kinds = append(p.kinds, kind)
		}
	}
	for _, m := range f.Merges {
		addKind(&m.Target)
		p.sections = append(p.sections, &section{target: m.Target, merge: m})
	}
	for _, s := range f.Sections {
		cs := &section{target: s.Target}
		kind := strings.ToLower(s.Target.Kind)
		addKind(&s.Target)
		var kinds []*kindSchema
		for _, ks := range schemasFor(kind) {
			if s.Target.groupMatches(ks.gvk.Group, ks.gvk.Version) {
				kinds = append(kinds, ks)
			}
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
		p.sections = append(p.sections, cs)
	}
	return p, nil
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
	pl.errCol = pl.col
	if len(pl.steps) == 0 {
		pl.fail(pl.col, errorf(ErrSyntax, "[delete] needs a path: deleting a whole object is not a patch"))
		return pl
	}
	if pl.act == actDelete && pl.steps[len(pl.steps)-1].isInsertion() {
		pl.fail(pl.col, errorf(ErrSyntax, "an insertion cannot be deleted"))
		return pl
	}
	pl.resolve(ks)
	if pl.err == nil && e != nil && pl.act != actDelete {
		pl.setValue(&e.Value, e.ValueCol)
	}
	return pl
}

// compileInsertSection resolves an insertion header and the entries that
// build its item.
func compileInsertSection(ks *kindSchema, s *Section) *plan {
	pl := &plan{line: s.Line, col: s.Col, errCol: s.Col}
	pl.steps, pl.act = combine(s.Path, nil)
	if pl.resolve(ks); pl.err != nil {
		return pl
	}
	for _, e := range s.Entries {
		sub := &plan{line: e.Line, col: e.Col, errCol: e.Col}
		sub.steps, sub.act = combine(nil, e.Key)
		sub.resolveTypes(pl.leaf)
		if sub.err == nil && sub.act != actDelete {
			sub.setValue(&e.Value, e.ValueCol)
		}
		if sub.err != nil && pl.err == nil {
			pl.err, pl.errCol, pl.line = sub.err, sub.errCol, sub.line
		}
		pl.build = append(pl.build, sub)
	}
	return pl
}

// resolve expands the shorthand of the path and checks it against the
// schema ks (nil: a kind without one).
func (pl *plan) resolve(ks *kindSchema) {
	if err := pl.expandShorthand(ks); err != nil {
		pl.fail(pl.stepCol(0), err)
		return
	}
	var root *typeNode
	if ks != nil {
		root = ks.root
	}
	pl.resolveTypes(root)
}

func (pl *plan) fail(col int, err *problem) {
	if pl.err == nil {
		pl.err, pl.errCol = err, col
	}
}

// stepCol is the column a problem at step i is reported at: the segment's
// own column when it is in the entry's key, else the entry's.
func (pl *plan) stepCol(i int) int {
	if i < len(pl.steps) && !pl.steps[i].header && pl.steps[i].Col > 0 {
		return pl.steps[i].Col
	}
	return pl.col
}

// expandShorthand prefixes the path's first field with where it lives:
// metadata for labels and annotations, the spec chain for the rest.
func (pl *plan) expandShorthand(ks *kindSchema) *problem {
	first := &pl.steps[0]
	if first.Kind != Field {
		return errorf(ErrSyntax, "a path starts with a field name, not %s", Path{*first}.String())
	}
	name := first.Name
	var prefix []string
	switch {
	case ks != nil && ks.root.fields[name] != nil:
		return nil
	case name == "labels" || name == "annotations":
		prefix = []string{"metadata"}
	case ks == nil:
		return nil
	default:
		for _, sp := range ks.specPaths {
			if nodeAt(ks.root, sp).fields[name] != nil {
				prefix = sp
				break
			}
		}
		if prefix == nil {
			places := []string{"the top level"}
			for _, sp := range ks.specPaths {
				places = append(places, strings.Join(sp, "."))
			}
			return errorf(ErrUnknownField, "%s has no field %q (looked in %s)", ks.gvk.Kind, name, strings.Join(places, ", "))
		}
	}
	steps := make([]Segment, 0, len(prefix)+len(pl.steps))
	for _, f := range prefix {
		steps = append(steps, Segment{Kind: Field, Name: f, header: true})
	}
	pl.steps = append(steps, pl.steps...)
	return nil
}

func nodeAt(n *typeNode, path []string) *typeNode {
	for _, f := range path {
		n = n.fields[f]
	}
	return n
}

// resolveTypes checks the steps against the schema below n, sets the leaf
// type, turns indexes on maps into keys and marks image parts. With n nil
// (no schema) it only marks possible image parts.
func (pl *plan) resolveTypes(n *typeNode) {
	steps := pl.steps
	if n == nil {
		k := len(steps)
		if pl.act != actInsert && k >= 2 && steps[k-2].Kind == Field && steps[k-2].Name == "image" &&
			steps[k-1].Kind == Field && isImagePart(steps[k-1].Name) {
			steps[k-1].Kind = maybeImagePart
		}
		return
	}
	imageField := false
	for i := range steps {
		st := &steps[i]
		last := i == len(steps)-1
		if n.kind == tAny {
			n = nil
			break
		}
		fail := func(err *problem) { pl.fail(pl.stepCol(i), err) }
		at := func() string { return Path(steps[:i]).String() }
		switch st.Kind {
		case Field:
			if n.kind == tList && (n.elem.kind == tStruct || n.elem.kind == tMap || n.elem.kind == tAny) {
				n = n.elem // a field of every item
			}
			switch n.kind {
			case tStruct:
				f := n.fields[st.Name]
				if f == nil {
					fail(errorf(ErrUnknownField, "%s has no field %q at %s", n.name, st.Name, at()))
					return
				}
				imageField = st.Name == "image" && f.kind == tString
				n = f
				continue
			case tMap:
				n = n.elem
			case tAny:
				n = nil
			case tString:
				if imageField && last && isImagePart(st.Name) && pl.act != actInsert {
					st.Kind = imagePart
					n = stringNode
					break
				}
				fail(errorf(ErrType, "%s is a string; it has no field %q", at(), st.Name))
				return
			default:
				fail(errorf(ErrType, "%s is %s; it has no field %q", at(), n.describe(), st.Name))
				return
			}
		case Index:
			switch n.kind {
			case tList:
				n = n.elem
			case tMap:
				st.Kind = Field // the digits as written are the key
				n = n.elem
			default:
				fail(errorf(ErrType, "%s is %s; an index needs a list", at(), n.describe()))
				return
			}
		case Select, All, Append, InsertBefore, InsertAfter, DeleteItems:
			if n.kind != tList {
				fail(errorf(ErrType, "%s is %s; %s needs a list", at(), n.describe(), Path{*st}.String()))
				return
			}
			if st.ByMatch || st.Kind == Select {
				if err := checkSelectorKey(n.elem, st.Key); err != nil {
					fail(err)
					return
				}
			}
			n = n.elem
		}
		imageField = false
		if n == nil {
			break
		}
	}
	pl.leaf = n
}

// checkSelectorKey checks a selector's key path against the items' type.
func checkSelectorKey(n *typeNode, key []string) *problem {
	for _, k := range key {
		switch n.kind {
		case tStruct:
			f := n.fields[k]
			if f == nil {
				return errorf(ErrUnknownField, "the items (%s) have no field %q to select by", n.name, k)
			}
			n = f
		case tMap:
			n = n.elem
		case tAny:
			return nil
		default:
			return errorf(ErrType, "the items are %s; a selector needs objects", n.describe())
		}
	}
	return nil
}

func isImagePart(name string) bool {
	switch name {
	case "registry", "repository", "tag", "digest":
		return true
	}
	return false
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
		val, err := coerceTree(v.Tree, pl.leaf)
		if err != nil {
			pl.fail(col, errorf(err.err, "%s: %s", Path(pl.steps).String(), err.msg))
			return
		}
		pl.value = val
		return
	}
	if !v.Quoted {
		pl.raw = v.Raw
	}
	leaf := pl.leaf
	if len(pl.steps) > 0 && pl.steps[len(pl.steps)-1].Kind == maybeImagePart {
		leaf = nil
	}
	val, err := coerce(v.Scalar, leaf, pl.raw)
	if err != nil {
		pl.fail(col, errorf(err.err, "%s: %s", Path(pl.steps).String(), err.msg))
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
