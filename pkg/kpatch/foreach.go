package kpatch

import (
	"regexp"
	"strings"

	"kpatch.dev/kpatch/pkg/condition"
)

// ForeachKey is the metadata key of a section's list: `# kpatch:foreach:
// EXPR` directly after a header makes the section's entries apply once
// per element of the CEL list EXPR, with item bound to the element.
const ForeachKey = "foreach"

// foreach is a section's compiled list and the condition of its
// elements.
type foreach struct {
	list    *condition.Expression
	listPos Position
	// when is the section's condition, evaluated per element with item
	// bound; nil without one.
	when    *condition.Expression
	whenPos Position
}

// sectionForeach reads a `# kpatch:foreach:` line after a header (after
// is the text after `# kpatch:`, keyCol its column). It reports false for
// any other metadata line.
func (p *lineParser) sectionForeach(lineNo int, after string, keyCol int) bool {
	return p.sectionExpression(lineNo, after, keyCol, ForeachKey, func(s *Section) **When { return &s.Foreach })
}

// celOptions are the variables the CEL values of section s read: podSpec
// and podMetadata in an @workload section, item in a foreach section.
func celOptions(s *Section) condition.Options {
	opts := condition.Options{Workload: s.Target.isWorkloadSet(), Item: s.Foreach != nil}
	if s.Foreach != nil {
		if path := objectListPath(s.Foreach.Expr); path != nil {
			opts.ItemPaths = [][]string{path}
		}
	}
	return opts
}

// objectPathRE is an expression that selects a field of object by names.
var objectPathRE = regexp.MustCompile(`^object(\.[A-Za-z_][A-Za-z0-9_]*)+$`)

// objectListPath is where in object the elements of a foreach list are,
// for the estimate of the cost of its entries: the fields of a list
// expression that selects one (object.spec.containers: spec,
// containers, @items); nil for any other.
func objectListPath(expr string) []string {
	expr = strings.TrimSpace(expr)
	if !objectPathRE.MatchString(expr) {
		return nil
	}
	return append(strings.Split(expr, ".")[1:], "@items")
}

// compileForeach compiles the lists of the file's foreach sections, and
// their conditions, evaluated per element (sections indexes the compiled
// sections by the file's Sections, from first).
func (p *Patch) compileForeach(f *File, first int) ErrorList {
	var errs ErrorList
	for i, s := range f.Sections {
		if s.Foreach == nil {
			continue
		}
		fe := &foreach{listPos: s.Foreach.Pos}
		opts := condition.Options{Workload: s.Target.isWorkloadSet()}
		list, err := s.Foreach.compileExpression(ForeachKey, opts, func(e *condition.Expression) string {
			if r := e.Result(); r != condition.ResultList && r != condition.ResultDyn {
				return "must evaluate to a list but got " + e.Type()
			}
			return ""
		})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fe.list = list
		if s.When != nil {
			fe.whenPos = s.When.Pos
			fe.when, err = s.When.compileExpression(WhenKey, celOptions(s), func(e *condition.Expression) string {
				if r := e.Result(); r != condition.ResultBool && r != condition.ResultDyn {
					return "must evaluate to bool but got " + e.Type()
				}
				return ""
			})
			if err != nil {
				errs = append(errs, err)
				continue
			}
		}
		p.sections[first+i].foreach = fe
	}
	return errs
}

// compileExpression compiles the expression of a section's key (foreach,
// or when in a foreach section) for opts; check says what is wrong with
// its type ("" when nothing is). A problem is at its place in the file.
func (w *When) compileExpression(key string, opts condition.Options, check func(*condition.Expression) string) (*condition.Expression, *ParseError) {
	e, err := condition.CompileExpression(w.Expr, opts)
	if err == nil {
		if msg := check(e); msg != "" {
			return nil, &ParseError{Pos: w.Pos, Err: ErrValue, Msg: key + ": " + msg}
		}
		return e, nil
	}
	ce, ok := err.(*condition.Error)
	if !ok {
		return nil, &ParseError{Pos: w.Pos, Err: err, Msg: key + ": " + err.Error()}
	}
	return nil, &ParseError{Pos: w.position(ce.Line, ce.Column), Err: ce, Msg: key + ": " + ce.Msg}
}

// applyForeach applies the entries of a foreach section once per element
// of its list, item bound to the element, where the section's condition
// holds for it. A list that fails on the object, or is no list, fails
// the file there.
func (a *applier) applyForeach(s *section, ref *ObjectRef, p *Patch, errs ErrorList) ErrorList {
	fe := s.foreach
	val, err := a.EvalExpression(fe.list, a.expanded.params, nil)
	if err != nil {
		return append(errs, errorf(errCELFailed, "foreach: %s", err).at(fe.listPos.Line, fe.listPos.Column).applyError(p.name, ref))
	}
	list, ok := val.([]any)
	if !ok && val != nil {
		return append(errs, errorf(errCELFailed, "foreach: the expression gives %s, not a list", describeValue(val)).at(fe.listPos.Line, fe.listPos.Column).applyError(p.name, ref))
	}
	for j := range list {
		if a.meter.count(1, 0); a.meter.spent != nil {
			return append(errs, a.meter.spent.at(fe.listPos.Line, fe.listPos.Column).applyError(p.name, ref))
		}
		item := &list[j] // list is jsonOf's own: no element escapes to the heap
		if fe.when != nil {
			held, err := a.EvalExpression(fe.when, a.expanded.params, item)
			if err == nil {
				if _, isBool := held.(bool); !isBool {
					err = errorf(errCELFailed, "gives %s, not a boolean", describeValue(held))
				}
			}
			if err != nil {
				return append(errs, errorf(errCELFailed, "when of %s: %s", s.target.String(), err).at(fe.whenPos.Line, fe.whenPos.Column).applyError(p.name, ref))
			}
			if held != true {
				continue
			}
		}
		before := len(errs)
		if errs = a.applyOps(s, ref, p, p.vars.WithItem(*item), errs); len(errs) > before {
			return errs
		}
	}
	return errs
}

// Expressions are the compiled CEL expressions of the patch beside its
// conditions: its CEL values, and its foreach lists and their
// per-element conditions, each once, in file order. What they read of
// params binds the file to the values as its conditions' does.
func (p *Patch) Expressions() []*condition.Expression {
	var out []*condition.Expression
	p.eachExpression(func(e *condition.Expression, _ Position) { out = append(out, e) })
	return out
}

// eachExpression calls f with each expression of Expressions, in their
// order, and where it is written: a foreach line, or the entry's value.
func (p *Patch) eachExpression(f func(e *condition.Expression, pos Position)) {
	seen := map[*condition.Expression]bool{}
	add := func(e *condition.Expression, pos Position) {
		if e != nil && !seen[e] {
			seen[e] = true
			f(e, pos)
		}
	}
	addPlan := func(pl *plan) {
		for _, q := range append([]*plan{pl}, pl.build...) {
			if q == nil || q.tmpl == nil {
				continue
			}
			for _, part := range q.tmpl.Parts {
				if part.Var != nil && part.Var.CEL != nil {
					add(part.Var.CEL.expr, Position{File: p.name, Line: q.line, Column: q.valueCol})
				}
			}
		}
	}
	for _, s := range p.sections {
		if s.foreach != nil {
			add(s.foreach.list, s.foreach.listPos)
			add(s.foreach.when, s.foreach.whenPos)
		}
		for _, op := range s.ops {
			addPlan(op.generic)
			for _, pl := range op.schemas {
				addPlan(pl)
			}
		}
	}
}

// HasExpressions reports whether the patch has CEL expressions beside its
// conditions (Expressions): its run reads what conditions read.
func (p *Patch) HasExpressions() bool { return p.expressions }
