package condition

import (
	"math"
	"reflect"
	"unicode/utf8"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	"k8s.io/apiserver/pkg/cel/library"
)

// costEstimator is the Kubernetes library's cost estimator, as the API
// server uses it, with two additions: the sizes of the variables a
// condition reads (estimatedSize), and the cost of building the results that
// can be larger than what their function read (replace's, split's,
// findAll's, format's), a unit per 10 bytes of text and per item of a
// list. The library charges their reading only: a replace that makes a
// string of gigabytes out of one of kilobytes costs it a few thousand.
// It estimates a condition's cost when it compiles (checker.CostEstimator)
// and charges it when it runs (interpreter.ActualCostEstimator).
type costEstimator struct {
	library library.CostEstimator
	// itemPaths are where item is in object (Options.ItemPaths).
	itemPaths [][]string
}

var (
	_ checker.CostEstimator           = (*costEstimator)(nil)
	_ interpreter.ActualCostEstimator = (*costEstimator)(nil)
)

func newCostEstimator() *costEstimator {
	e := &costEstimator{}
	e.library.SizeEstimator = e // the library sizes what it reads as CEL does
	return e
}

// EstimateSize sizes a variable's value by its path.
func (e *costEstimator) EstimateSize(node checker.AstNode) *checker.SizeEstimate {
	path := node.Path()
	if len(path) > 0 && path[0] == ItemVar && len(e.itemPaths) > 0 {
		return itemSize(e.itemPaths, path[1:])
	}
	return estimatedSize(path)
}

// EstimateCallCost is the library's estimate, with the cost of building
// the result where it can be larger than what the call read.
func (e *costEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	est := e.library.EstimateCallCost(function, overloadID, target, args)
	switch function {
	case "replace":
		return building(est, costPerByte)
	case "split", "findAll":
		return building(est, 1)
	case "join":
		if target != nil && (*target).Expr().Kind() == ast.ListKind {
			return joinLiteral((*target).Expr(), args)
		}
		if target != nil && selectsItems((*target).Expr()) {
			return joinSelected(e.size(*target), args)
		}
	case "format":
		if target == nil || len(args) != 1 {
			return nil
		}
		// as CEL's own estimate: the format read, then what it builds
		read := e.size(*target).MultiplyByCostFactor(costPerByte)
		size := formatSize(*target, args[0])
		return building(&checker.CallEstimate{CostEstimate: read, ResultSize: &size}, costPerByte)
	}
	return est
}

// joinLiteral estimates [a, b...].join([sep]), whose items CEL's
// estimate does not size: the text of its items and separators.
func joinLiteral(list ast.Expr, args []checker.AstNode) *checker.CallEstimate {
	var size uint64
	for _, item := range list.AsList().Elements() {
		size = addSat(size, exprSize(item))
	}
	if len(args) == 1 {
		if n := list.AsList().Size(); n > 1 {
			size = addSat(size, mulSat(uint64(n-1), exprSize(args[0].Expr())))
		}
	}
	sz := checker.SizeEstimate{Min: 0, Max: size}
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(costPerByte), ResultSize: &sz}
}

// selectsItems reports whether e is a list of parts of what a variable
// holds: its items, or a field of each (LIST.map(v, v.name)), of a list
// a variable's field holds or one so made (a filter of it). The texts
// of such a list together take at most what the variable holds: the
// request (requestBytes).
func selectsItems(e ast.Expr) bool {
	if e.Kind() != ast.ComprehensionKind {
		return false
	}
	c := e.AsComprehension()
	if c.HasIterVar2() {
		return false
	}
	rng := c.IterRange()
	if p := selectPath(rng); p == nil && !selectsItems(rng) || p != nil && p[0] == c.IterVar() {
		return false
	}
	// the loop step of map and filter appends [x] to the accumulator,
	// filter's under a condition
	step := c.LoopStep()
	if step.Kind() == ast.CallKind && step.AsCall().FunctionName() == operators.Conditional {
		step = step.AsCall().Args()[1]
	}
	if step.Kind() != ast.CallKind || step.AsCall().FunctionName() != operators.Add || len(step.AsCall().Args()) != 2 {
		return false
	}
	added := step.AsCall().Args()[1]
	if added.Kind() != ast.ListKind || len(added.AsList().Elements()) != 1 {
		return false
	}
	p := selectPath(added.AsList().Elements()[0])
	return p != nil && p[0] == c.IterVar()
}

// joinSelected estimates LIST.join([sep]) of a list of parts of a
// variable (selectsItems): their text, at most the request, and a
// separator between each two of list's items.
func joinSelected(list checker.SizeEstimate, args []checker.AstNode) *checker.CallEstimate {
	size := requestBytes
	if len(args) == 1 && list.Max > 1 {
		size = addSat(size, mulSat(list.Max-1, exprSize(args[0].Expr())))
	}
	sz := checker.SizeEstimate{Min: 0, Max: size}
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(costPerByte), ResultSize: &sz}
}

// exprSize is the size of a literal or of a variable's field, the most a
// size can be for any other expression.
func exprSize(e ast.Expr) uint64 {
	if e.Kind() == ast.LiteralKind {
		switch v := e.AsLiteral().(type) {
		case types.String:
			return uint64(utf8.RuneCountInString(string(v)))
		case types.Bytes:
			return uint64(len(v))
		}
		return 1
	}
	if s := shapeAt(selectPath(e)); s != nil {
		return s.size()
	}
	return math.MaxUint64
}

// building adds to est the cost of building its result, at perUnit per
// character or item.
func building(est *checker.CallEstimate, perUnit float64) *checker.CallEstimate {
	if est == nil {
		return nil
	}
	size := checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
	if est.ResultSize != nil {
		size = *est.ResultSize
	}
	out := *est
	out.CostEstimate = est.CostEstimate.Add(size.MultiplyByCostFactor(perUnit))
	return &out
}

// size is the node's size as CEL computed it, or the variable's.
func (e *costEstimator) size(n checker.AstNode) checker.SizeEstimate {
	if sz := n.ComputedSize(); sz != nil {
		return *sz
	}
	if sz := e.EstimateSize(n); sz != nil {
		return *sz
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

// formatSize bounds what fmt.format(args) makes: fmt with each clause
// replaced by its argument, as guardFormat bounds it, which a literal
// format string and a literal list tell; unknown otherwise.
func formatSize(format, args checker.AstNode) checker.SizeEstimate {
	unknown := checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
	lit := format.Expr().AsLiteral()
	text, ok := lit.(types.String)
	if format.Expr().Kind() != ast.LiteralKind || !ok || args.Expr().Kind() != ast.ListKind {
		return unknown
	}
	precision := maxPrecision(string(text))
	n := uint64(len(text))
	for _, item := range args.Expr().AsList().Elements() {
		n = addSat(n, formatItemSize(item, precision))
	}
	return checker.SizeEstimate{Min: 0, Max: n}
}

// formatItemSize bounds the text a clause makes of item: a literal's, a
// variable's field's (text twice its length, anything else twice the JSON
// it is read from), unknown otherwise.
func formatItemSize(item ast.Expr, precision uint64) uint64 {
	if item.Kind() == ast.LiteralKind {
		return formatBound(item.AsLiteral(), precision)
	}
	s := shapeAt(selectPath(item))
	if s == nil {
		return math.MaxUint64
	}
	var n uint64
	for _, v := range s {
		switch {
		case v.t == nil || opaque(v.t):
			n = max(n, 2*v.budget)
		case v.t.Kind() == reflect.String:
			n = max(n, 2*v.size()+2)
		case v.t.Kind() >= reflect.Bool && v.t.Kind() <= reflect.Float64:
			n = max(n, addSat(400, precision))
		default:
			n = max(n, 2*v.budget)
		}
	}
	return n
}

// selectPath is the path of a variable's field that e selects (a.b,
// a['b'], a[0]), nil for any other expression.
func selectPath(e ast.Expr) []string {
	switch e.Kind() {
	case ast.IdentKind:
		return []string{e.AsIdent()}
	case ast.SelectKind:
		if e.AsSelect().IsTestOnly() {
			return nil
		}
		if p := selectPath(e.AsSelect().Operand()); p != nil {
			return append(p, e.AsSelect().FieldName())
		}
	case ast.CallKind:
		call := e.AsCall()
		if call.FunctionName() != operators.Index || len(call.Args()) != 2 || call.Args()[1].Kind() != ast.LiteralKind {
			return nil
		}
		p := selectPath(call.Args()[0])
		if p == nil {
			return nil
		}
		if key, ok := call.Args()[1].AsLiteral().(types.String); ok {
			return append(p, string(key))
		}
		return append(p, "@items")
	}
	return nil
}

// estimateFlatten estimates list.flatten([depth]): the items of its
// lists, depth levels down (CEL's own estimate counts a list literal's
// lists as one item each).
func estimateFlatten(_ checker.CostEstimator, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if target == nil || len(args) > 1 {
		return nil
	}
	depth := int64(1)
	if len(args) == 1 {
		depth = math.MaxInt64
		if n, ok := args[0].Expr().AsLiteral().(types.Int); ok && args[0].Expr().Kind() == ast.LiteralKind {
			depth = int64(n)
		}
	}
	size := checker.SizeEstimate{Min: 0, Max: flattenedSize((*target).Expr(), depth)}
	cost := size.MultiplyByCostFactor(1).Add(checker.FixedCostEstimate(common.ListCreateBaseCost + 1))
	return &checker.CallEstimate{CostEstimate: cost, ResultSize: &size}
}

// flattenedSize bounds the items e flattens into at depth: a literal's
// counted, a variable's field's as many as the JSON it is read from holds
// of items of any list, unknown otherwise.
func flattenedSize(e ast.Expr, depth int64) uint64 {
	if e.Kind() == ast.ListKind {
		if depth <= 0 {
			return uint64(e.AsList().Size())
		}
		var n uint64
		for _, item := range e.AsList().Elements() {
			n = addSat(n, flattenedSize(item, depth-1))
		}
		return n
	}
	if depth < 0 || e.Kind() == ast.LiteralKind {
		return 1
	}
	s := shapeAt(selectPath(e))
	if s == nil {
		return math.MaxUint64
	}
	var budget uint64
	for _, v := range s {
		budget = max(budget, v.budget)
	}
	return budget / 2 // an item and a comma
}

// CallCost is the library's charge, with the cost of building the result
// where it can be larger than what the call read.
func (e *costEstimator) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	cost := e.library.CallCost(function, overloadID, args, result)
	switch function {
	case "replace":
		return plus(cost, textCost(result))
	case "format":
		if len(args) > 0 {
			// CEL's own charge (the library has none), for the format
			// read, then the text built
			read := textCost(args[0])
			return plus(&read, textCost(result))
		}
	case "split", "findAll":
		if list, ok := result.(traits.Lister); ok {
			n, _ := list.Size().(types.Int)
			return plus(cost, uint64(max(n, 0)))
		}
	}
	return cost
}

// textCost is what a string's bytes cost to build or read, 0 for
// anything else (an error).
func textCost(v ref.Val) uint64 {
	s, _ := v.(types.String)
	return uint64(math.Ceil(float64(len(s)) * costPerByte))
}

func plus(cost *uint64, n uint64) *uint64 {
	sum := n
	if cost != nil {
		sum = addSat(*cost, n)
	}
	return &sum
}
