package kpatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kpatch.dev/kpatch/pkg/condition"
	"kpatch.dev/kpatch/pkg/scalar"
)

// ScopeCEL is the scope of a CEL value, ${cel: EXPR}: the value of a
// Kubernetes CEL expression over the variables of conditions.
const ScopeCEL = "cel"

// CELValue is the expression of a ${cel: EXPR} value.
type CELValue struct {
	// Expr is the expression as written, without the space after cel:.
	Expr string
	// Col is the column of the expression's first byte on its line.
	Col int

	// expr is the compiled expression, in a compiled patch's copy of the
	// value (celTemplates): the syntax tree is left as it was parsed.
	expr *condition.Expression
}

// errNoObject is a CEL value resolved where no object is known (a
// registry binding a file's values): it is checked as it applies.
var errNoObject = fmt.Errorf("%w: a CEL value without an object", ErrVariable)

// errCELFailed is a CEL value that failed on the object: the file fails
// there, as it does on any other problem of a value.
var errCELFailed = fmt.Errorf("%w: a CEL value failed", ErrVariable)

// parseCELRef reads the body of ${cel: EXPR}: rest is the text after
// cel:, col the column of the ${.
func parseCELRef(rest string, col int) (*VarRef, *problem) {
	expr := strings.TrimLeft(rest, " \t")
	start := col + 2 + len(scalar.CelPrefix) + len(rest) - len(expr)
	expr = strings.TrimRight(expr, " \t")
	if expr == "" {
		return nil, errorAt(start, ErrSyntax, "${cel:} needs an expression, such as ${cel: object.metadata.name + '-tls'}")
	}
	return &VarRef{Scope: ScopeCEL, CEL: &CELValue{Expr: expr, Col: start}}, nil
}

// compile compiles the expression for opts; a problem is placed at its
// column inside the expression.
func (c *CELValue) compile(opts condition.Options) (*condition.Expression, *problem) {
	e, err := condition.CompileExpression(c.Expr, opts)
	if err == nil {
		return e, nil
	}
	p := errorAt(c.Col, ErrSyntax, "${cel:}: %s", err)
	var ce *condition.Error
	if errors.As(err, &ce) {
		p.msg = "${cel:}: " + ce.Msg
		if ce.Line == 1 {
			p.col = c.Col + byteOffset(c.Expr, ce.Column)
		}
	}
	return nil, p
}

// celTemplates compiles the CEL values of one section's entries for the
// variables of the section (celOptions), once per entry for the plans of
// every version of its kinds.
type celTemplates struct {
	opts condition.Options
	// foreach says that the section's item is its foreach element, not
	// the item its path walks.
	foreach bool
	done    map[*Value]celTemplate
}

// celTemplate is an entry's value with its CEL values compiled, or the
// problem of the first that does not compile.
type celTemplate struct {
	value *Value
	err   *problem
}

func newCELTemplates(s *Section) *celTemplates {
	return &celTemplates{opts: celOptions(s), foreach: s.Foreach != nil}
}

// of returns v, or when it holds CEL values a copy of it with them
// compiled; pl is the first plan of the entry, whose walk sizes item
// outside a foreach section.
func (ct *celTemplates) of(v *Value, pl *plan) (*Value, *problem) {
	if !hasCEL(v) {
		return v, nil
	}
	if t, ok := ct.done[v]; ok {
		return t.value, t.err
	}
	if !ct.foreach {
		ct.opts.Item, ct.opts.ItemPaths = true, nil
		if w := innermostWalk(pl.steps, len(pl.steps)); w >= 0 && pl.typed {
			ct.opts.ItemPaths = stepsPaths(pl.steps[:w+1])
		}
	}
	out := *v
	out.Parts = slices.Clone(v.Parts)
	var t celTemplate
	for i, part := range out.Parts {
		if part.Var == nil || part.Var.CEL == nil {
			continue
		}
		ref := *part.Var
		c := *ref.CEL
		if c.expr, t.err = c.compile(ct.opts); t.err != nil {
			break
		}
		ref.CEL = &c
		out.Parts[i].Var = &ref
	}
	if t.err == nil {
		t.value = &out
	}
	if ct.done == nil {
		ct.done = map[*Value]celTemplate{}
	}
	ct.done[v] = t
	return t.value, t.err
}

// hasCEL reports whether a value holds a CEL value.
func hasCEL(v *Value) bool {
	for _, part := range v.Parts {
		if part.Var != nil && part.Var.CEL != nil {
			return true
		}
	}
	return false
}

// byteOffset is the offset in bytes of the col-th character (1-based)
// of text's first line.
func byteOffset(text string, col int) int {
	n := 0
	for i := range text {
		if n == col-1 {
			return i
		}
		n++
	}
	return len(text)
}

// checkCEL checks the compiled CEL values of the plan's template against
// what each goes into: a value that is exactly one goes into the field
// (celFits), one spliced into text is text.
func (pl *plan) checkCEL() {
	t := pl.tmpl
	whole := t.wholeVar()
	for _, part := range t.Parts {
		if part.Var == nil || part.Var.CEL == nil {
			continue
		}
		c := part.Var.CEL
		e := c.expr
		if whole == nil && !splicable(e.Result()) {
			pl.fail(c.Col, errorf(ErrValue, "${cel:}: spliced into text, the expression must give text, a number or a boolean, not %s", e.Type()))
			return
		}
		if whole != nil && pl.act != actDelete && !pl.imagePart() && !celFits(e.Result(), pl.leaf) {
			pl.fail(c.Col, errorf(ErrValue, "${cel:}: %s wants %s; the expression gives %s", pathText(pl.steps), pl.leaf.describe(), e.Type()))
			return
		}
	}
}

// splicable reports whether a result has a text to splice.
func splicable(r condition.Result) bool {
	switch r {
	case condition.ResultList, condition.ResultMap, condition.ResultOther:
		return false
	}
	return true
}

// celFits reports whether a CEL value of result r can go into a field of
// type n: text into a text field (and numbers and booleans, which become
// text, as constants do), integers into integer fields, numbers into
// number fields, a list into a list, a map into a map or a struct; a
// result the checker cannot type (dyn) and null go anywhere, and are
// checked on the object.
func celFits(r condition.Result, n *typeNode) bool {
	if r == condition.ResultDyn || r == condition.ResultNull {
		return true
	}
	if r == condition.ResultOther {
		return false
	}
	if n == nil || n.kind == tAny {
		return true
	}
	switch n.kind {
	case tString:
		return r == condition.ResultString || r == condition.ResultInt || r == condition.ResultDouble || r == condition.ResultBool
	case tBytes:
		return r == condition.ResultString
	case tInt:
		return r == condition.ResultInt
	case tFloat:
		return r == condition.ResultInt || r == condition.ResultDouble
	case tBool:
		return r == condition.ResultBool
	case tIntOrString:
		return r == condition.ResultInt || r == condition.ResultString
	case tQuantity:
		return r == condition.ResultString || r == condition.ResultInt || r == condition.ResultDouble
	case tStruct, tMap:
		return r == condition.ResultMap
	case tList:
		return r == condition.ResultList
	}
	return false
}

// ExpressionEvaluator evaluates the CEL values of the files on one
// object, with the variables of their conditions (object, oldObject,
// namespaceObject, request, podSpec and podMetadata), params the file's
// values, and charges them to the budget of the file's owner.
type ExpressionEvaluator interface {
	// EvalExpression evaluates e with params; item, when not nil, is the
	// value of the variable item.
	EvalExpression(e *condition.Expression, params map[string]any, item *any) (any, error)
}

// offlineExpressions evaluates CEL values where the caller gives no
// ExpressionEvaluator: object is the object Apply was given, request an
// offline CREATE of it, oldObject and namespaceObject null; the budget
// is one request's, for the call.
type offlineExpressions struct {
	ctx    context.Context
	in     condition.Input
	vars   *condition.Vars
	budget *condition.Budget
}

// newOfflineExpressions returns the evaluator of the CEL values of a
// call on obj.
func newOfflineExpressions(ctx context.Context, obj map[string]any) *offlineExpressions {
	o := &offlineExpressions{ctx: ctx, budget: condition.NewBudget(0)}
	o.in.Object, o.in.Request = obj, condition.OfflineRequest(obj)
	o.in.PodSpec, o.in.PodMetadata = PodTemplate(obj)
	o.vars = condition.NewVars(&o.in)
	return o
}

// EvalExpression evaluates e on the call's object.
func (o *offlineExpressions) EvalExpression(e *condition.Expression, params map[string]any, item *any) (any, error) {
	o.in.Params, o.in.Item = params, nil
	if item != nil {
		o.in.Item = *item
	}
	return e.Eval(o.ctx, o.vars, o.budget)
}

// evalCEL evaluates the CEL value ref with ex's evaluator, item bound to
// the item of vars: a problem without an evaluator or an item (deferred)
// or when it fails on the object.
func (ex *expansion) evalCEL(ref *VarRef, vars *Variables) (any, *problem) {
	e := ref.CEL.expr
	if e == nil {
		return nil, errorf(ErrSyntax, "%s stands as an entry's value or inside its text, not in a structured value", ref)
	}
	if ex.cel == nil {
		return nil, errorf(errNoObject, "%s has no value here: it is evaluated on each object", ref)
	}
	var item *any
	if vars != nil && vars.HasItem {
		item = &vars.Item
	} else if e.ReadsItem() {
		return nil, errorf(errNoItem, "%s has no value here: the item is known as the file applies", ref)
	}
	v, err := ex.cel.EvalExpression(e, ex.params, item)
	if err != nil {
		return nil, errorf(errCELFailed, "%s: %s", ref, err)
	}
	return v, nil
}

// celWhole is the value of a CEL value that is a whole value, typed as
// the expression gives it; its size counts against ex.
func celWhole(ref *VarRef, vars *Variables, ex *expansion) (any, *problem) {
	v, err := ex.evalCEL(ref, vars)
	if err != nil {
		return nil, err
	}
	return v, ex.take(jsonSize(v))
}

// celText is the text of a CEL value spliced into text.
func celText(ref *VarRef, vars *Variables, ex *expansion) (string, *problem) {
	v, err := ex.evalCEL(ref, vars)
	if err != nil {
		return "", err
	}
	text, ok := scalarText(v)
	if !ok {
		return "", errorf(errCELFailed, "%s gives %s, which has no text to splice", ref, describeValue(v))
	}
	return text, nil
}

// EvalExpression evaluates a CEL value of the call's files: with the
// caller's evaluator, or one of the object the call was given.
func (a *applier) EvalExpression(e *condition.Expression, params map[string]any, item *any) (any, error) {
	if a.exprs == nil {
		a.exprs = newOfflineExpressions(a.ctx, a.input)
	}
	return a.exprs.EvalExpression(e, params, item)
}

// readsItem reports whether the compiled expression reads item.
func (c *CELValue) readsItem() bool { return c.expr != nil && c.expr.ReadsItem() }
