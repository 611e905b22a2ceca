package kpatch

import (
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/pkg/condition"
)

// WhenKey is the metadata key of a condition: `# kpatch:when: EXPR`
// before the first header conditions the whole file, the same line
// directly after a header conditions that section; `when:` in the
// metadata entry of a YAML patch file conditions the file.
const WhenKey = "when"

// When is a condition as a file writes it: a Kubernetes CEL expression
// and where it starts. Compile compiles it (Patch.Conditions).
type When struct {
	Expr string
	Pos  Position
	// multiline says that Expr was a YAML block scalar, whose lines start
	// after Pos's line.
	multiline bool
}

// Condition is one compiled condition of a patch: of the whole file
// (Section -1) or of one section.
type Condition struct {
	*condition.Condition
	// Pos is where the expression starts.
	Pos Position
	// Section is the index of the section it conditions among the
	// patch's sections, as Without takes them; -1 for the file.
	Section int
	// Header is the section's header as written ("" for the file).
	Header string
	// Item says that the condition reads item: its header walks list
	// items, and Apply evaluates it on each (ApplyOptions.EvalItem)
	// instead of the caller before the file applies.
	Item bool
}

// whenText reads the text after `# kpatch:when: `: the rest of the line
// is the expression (CEL has no # comments).
func whenText(m *Metadata, text string, pos Position) *ParseError {
	if m.When != nil {
		return metaError(pos, ErrSyntax, "when: given twice; first at line %d", m.When.Pos.Line)
	}
	w, err := newWhen(text, pos)
	if err != nil {
		return err
	}
	m.When = w
	return nil
}

// whenNode reads the when: of a YAML patch file's metadata entry.
func whenNode(m *Metadata, n *yaml.Node, pos Position) *ParseError {
	if n.Kind != yaml.ScalarNode {
		return metaError(pos, ErrSyntax, "when: expected a CEL expression in a text")
	}
	if n.Style == yaml.DoubleQuotedStyle || n.Style == yaml.SingleQuotedStyle {
		pos.Column++ // the expression starts after the quote
	}
	w, err := newWhen(n.Value, pos)
	if err != nil {
		return err
	}
	w.multiline = n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle
	m.When = w
	return nil
}

func newWhen(text string, pos Position) (*When, *ParseError) {
	expr := strings.TrimRight(text, " \t")
	if strings.TrimSpace(expr) == "" {
		return nil, metaError(pos, ErrSyntax, "when: expected a CEL expression, such as object.spec.replicas > 2")
	}
	return &When{Expr: expr, Pos: pos}, nil
}

// sectionWhen reads a `# kpatch:when:` line after a header (after is
// the text after `# kpatch:`, keyCol its column): the condition of the
// current section. It reports false for any other metadata line.
func (p *lineParser) sectionWhen(lineNo int, after string, keyCol int) bool {
	return p.sectionExpression(lineNo, after, keyCol, WhenKey, func(s *Section) **When { return &s.When })
}

// sectionExpression reads a `# kpatch:KEY:` line of a section's CEL
// expression after its header (after is the text after `# kpatch:`,
// keyCol its column) into the field of the current section that field
// gives. It reports false for a line of another key.
func (p *lineParser) sectionExpression(lineNo int, after string, keyCol int, key string, field func(*Section) **When) bool {
	value, ok := strings.CutPrefix(after, key+":")
	if !ok {
		return false
	}
	s := p.cur
	if s == nil {
		return true // below a broken header, reported already
	}
	if len(s.Entries) > 0 {
		p.report(lineNo, errorAt(keyCol, ErrSyntax, "a section's # %s%s: goes directly after its header, before its first entry (line %d)", MetadataPrefix, key, s.Entries[0].Line))
		return true
	}
	text := strings.TrimLeft(value, " \t")
	pos := Position{File: p.file.Name, Line: lineNo, Column: keyCol + len(key) + 1 + len(value) - len(text)}
	if w := *field(s); w != nil {
		p.errs = append(p.errs, metaError(pos, ErrSyntax, "%s: given twice for the section; first at line %d", key, w.Pos.Line))
		return true
	}
	w, err := newWhen(text, pos)
	if err != nil {
		err.Msg = strings.Replace(err.Msg, WhenKey+":", key+":", 1)
		p.errs = append(p.errs, err)
		return true
	}
	*field(s) = w
	return true
}

// compile compiles the condition, reporting a problem at its place in
// the file.
func (w *When) compile(opts condition.Options) (*condition.Condition, *ParseError) {
	c, err := condition.Compile(w.Expr, opts)
	if err == nil {
		return c, nil
	}
	ce, ok := err.(*condition.Error)
	if !ok {
		return nil, &ParseError{Pos: w.Pos, Err: err, Msg: "when: " + err.Error()}
	}
	return nil, &ParseError{Pos: w.position(ce.Line, ce.Column), Err: ce, Msg: "when: " + ce.Msg}
}

// position is the place in the file of line and column (1-based, in
// characters) of the expression.
func (w *When) position(line, col int) Position {
	pos := w.Pos
	lines := strings.Split(w.Expr, "\n")
	if line < 1 || line > len(lines) {
		return pos
	}
	text := lines[line-1]
	offset := 0 // bytes before the col-th character
	for i := 1; i < col && offset < len(text); i++ {
		_, n := utf8.DecodeRuneInString(text[offset:])
		offset += n
	}
	switch {
	case w.multiline:
		pos.Line += line // a block scalar starts on the next line
		pos.Column = 1 + offset
	case line == 1:
		pos.Column += offset
	default:
		pos.Line += line - 1
		pos.Column = 1 + offset
	}
	return pos
}

// compileConditions compiles the conditions of the file and of its
// sections (sections indexes the compiled sections by the file's
// Sections). A condition reads podSpec and podMetadata when it is of an
// @workload section, or of a file with one.
func (p *Patch) compileConditions(f *File, first int) ErrorList {
	var errs ErrorList
	if w := f.Metadata.When; w != nil {
		workload := false
		for _, s := range f.Sections {
			workload = workload || s.Target.isWorkloadSet()
		}
		if c, err := w.compile(condition.Options{Workload: workload}); err != nil {
			errs = append(errs, err)
		} else {
			p.conds = append(p.conds, &Condition{Condition: c, Pos: w.Pos, Section: -1})
		}
	}
	for i, s := range f.Sections {
		if s.When == nil || s.Foreach != nil {
			continue // a foreach section's when is its elements' (compileForeach)
		}
		c, item, err := sectionCondition(s, p.sections[first+i])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cond := &Condition{Condition: c, Pos: s.When.Pos, Section: first + i, Header: s.header(), Item: item}
		if item {
			p.sections[first+i].attachItemCondition(cond)
		}
		p.conds = append(p.conds, cond)
	}
	return errs
}

// header is the section's header as the file writes it, canonically.
func (s *Section) header() string {
	var b strings.Builder
	b.WriteString("[" + s.Target.String())
	for j := range s.Path {
		s.Path[j].write(&b, false)
	}
	b.WriteString("]")
	return b.String()
}

// Conditions are the compiled conditions of the patch: the file's first,
// then its sections' in file order; nil when it has none.
func (p *Patch) Conditions() []*Condition { return p.conds }

// Without returns the patch without the sections that leave marks,
// indexed as Condition.Section: they do not apply, and their ${required}
// fields are not checked. leave must not change afterwards.
func (p *Patch) Without(leave []bool) *Patch {
	q := *p
	q.leave = leave
	return &q
}

// left reports whether the i-th section is left out (Without).
func (p *Patch) left(i int) bool { return i < len(p.leave) && p.leave[i] }

// PodTemplate returns the pod spec and the pod's metadata of a workload
// object (a Pod's own spec and metadata, a Deployment's template, a
// CronJob's job template's): what a condition of an @workload file reads
// as podSpec and podMetadata. Both are nil for an object of another kind,
// and each is nil where the object does not hold it.
func PodTemplate(obj map[string]any) (spec, metadata map[string]any) {
	api, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	ks := schemaOf(api, kind)
	if ks == nil || !ks.workload {
		return nil, nil
	}
	spec, _ = walkFields(obj, ks.podSpecSteps).(map[string]any)
	meta, _ := walkFields(obj, ks.podMetaSteps).(map[string]any)
	metadata, _ = meta["metadata"].(map[string]any)
	return spec, metadata
}

// walkFields follows field steps from obj: nil where a field is missing.
func walkFields(obj any, steps []step) any {
	for _, st := range steps {
		m, _ := obj.(map[string]any)
		f, ok := st.(*fieldStep)
		if m == nil || !ok {
			return nil
		}
		obj = m[f.name]
	}
	return obj
}

// AppliesTo reports whether a section of the patch that is not left out
// (Without) targets the object ref.
func (p *Patch) AppliesTo(ref *ObjectRef) bool {
	for i, s := range p.sections {
		if !p.left(i) && s.target.Matches(ref) {
			return true
		}
	}
	return false
}

// SectionTargets reports whether the i-th section of the patch (as
// Condition.Section counts them) targets the object ref.
func (p *Patch) SectionTargets(i int, ref *ObjectRef) bool {
	return i >= 0 && i < len(p.sections) && p.sections[i].target.Matches(ref)
}

// SectionCount is the number of the patch's sections, merge entries
// included: the length of a Without mask.
func (p *Patch) SectionCount() int { return len(p.sections) }
