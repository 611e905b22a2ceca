package condition

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
)

// checkCost refuses a condition whose estimated worst-case cost exceeds
// limit: the cost CEL's estimator finds with the Kubernetes library's
// costs, the sizes of the variables (estimatedSize) and the building of large
// results (costEstimator). The error is at the part of the expression
// that makes most of the cost.
func checkCost(env *cel.Env, est *costEstimator, expr string, checked *cel.Ast, limit uint64) error {
	cost, err := env.EstimateCost(checked, est)
	if err != nil {
		return &Error{Line: 1, Column: 1, Msg: "estimating the cost: " + err.Error()}
	}
	if cost.Max <= limit {
		return nil
	}
	native := checked.NativeRep()
	part, partCost := dominantPart(env, est, native, native.Expr(), cost.Max)
	out := &Error{Line: 1, Column: 1, Msg: fmt.Sprintf("estimated worst-case cost %d exceeds the per-call limit %d", cost.Max, limit)}
	name, offset := calledName(expr, native, part)
	if loc := native.SourceInfo().GetLocationByOffset(offset); loc.Line() > 0 && offset >= 0 {
		out.Line, out.Column = loc.Line(), loc.Column()+1
	}
	if what := describePart(part, name); what != "" {
		out.Msg += fmt.Sprintf(" (%d of it in %s)", partCost, what)
	}
	return out
}

// calledName is the name of the function or macro that part calls and
// its offset in expr (in characters), or "" and part's own offset: the
// parser places a call at its parenthesis.
func calledName(expr string, a *ast.AST, part ast.Expr) (string, int32) {
	r, ok := a.SourceInfo().GetOffsetRange(part.ID())
	if !ok {
		return "", -1
	}
	text := []rune(expr)
	if int(r.Start) >= len(text) || text[r.Start] != '(' {
		return "", r.Start
	}
	start := r.Start
	switch part.Kind() {
	case ast.CallKind:
		name := part.AsCall().FunctionName()
		if n := int32(len([]rune(name))); n <= start && string(text[start-n:start]) == name {
			return name, start - n
		}
	case ast.ComprehensionKind:
		for start > 0 && (unicode.IsLetter(text[start-1]) || unicode.IsDigit(text[start-1]) || text[start-1] == '_') {
			start--
		}
		if start < r.Start {
			return string(text[start:r.Start]), start
		}
	}
	return "", r.Start
}

// dominantPart descends from e, of cost, into the sub-expression that
// makes at least half of it, as long as there is one; comprehensions
// (all, exists, map...) are not entered, their variables being theirs.
func dominantPart(env *cel.Env, est *costEstimator, a *ast.AST, e ast.Expr, cost uint64) (ast.Expr, uint64) {
	for {
		var best ast.Expr
		var bestCost uint64
		for _, child := range operands(e) {
			if c, ok := subCost(env, est, a, child); ok && c > bestCost {
				best, bestCost = child, c
			}
		}
		if best == nil || bestCost < cost/2 {
			return e, cost
		}
		e, cost = best, bestCost
	}
}

// operands are the sub-expressions e computes its value from.
func operands(e ast.Expr) []ast.Expr {
	switch e.Kind() {
	case ast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() {
			return append([]ast.Expr{call.Target()}, call.Args()...)
		}
		return call.Args()
	case ast.SelectKind:
		return []ast.Expr{e.AsSelect().Operand()}
	case ast.ListKind:
		return e.AsList().Elements()
	case ast.MapKind:
		var out []ast.Expr
		for _, entry := range e.AsMap().Entries() {
			out = append(out, entry.AsMapEntry().Key(), entry.AsMapEntry().Value())
		}
		return out
	}
	return nil
}

// subCost is the estimated worst-case cost of e alone.
func subCost(env *cel.Env, est *costEstimator, a *ast.AST, e ast.Expr) (uint64, bool) {
	sub := ast.NewCheckedAST(ast.NewAST(e, a.SourceInfo()), a.TypeMap(), a.ReferenceMap())
	pb, err := ast.ToProto(sub)
	if err != nil {
		return 0, false
	}
	cost, err := env.EstimateCost(cel.CheckedExprToAst(pb), est)
	if err != nil {
		return 0, false
	}
	return cost.Max, true
}

// describePart names a part of an expression for a message: the function
// or macro it calls (name), with what a macro iterates over when it is a
// variable's field.
func describePart(e ast.Expr, name string) string {
	switch e.Kind() {
	case ast.CallKind:
		if op, ok := operators.FindReverse(e.AsCall().FunctionName()); ok {
			return op
		}
		return e.AsCall().FunctionName() + "()"
	case ast.ComprehensionKind:
		out := "a comprehension"
		if name != "" {
			out = name + "()"
		}
		if path := selectPath(e.AsComprehension().IterRange()); path != nil {
			if s := shapeAt(path); s != nil {
				out += fmt.Sprintf(" over %s, which may hold %d items", strings.Join(path, "."), s.size())
			}
		}
		return out
	}
	return ""
}
