package condition

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Result is the type an Expression's checker gives its value, as a field
// of an object sees it.
type Result uint8

// The results of expressions: ResultDyn is a value the checker cannot
// type (a field of object), known only once evaluated.
const (
	ResultDyn Result = iota
	ResultString
	ResultInt
	ResultDouble
	ResultBool
	ResultNull
	ResultList
	ResultMap
	// ResultOther is a value no field holds as it is: bytes, a duration,
	// a timestamp, a type, an optional.
	ResultOther
)

// String names the result for a message: "a string", "a list".
func (r Result) String() string {
	return [...]string{"a value of any type", "a string", "an integer", "a number", "a boolean", "null", "a list", "a map", "a value no field holds"}[r]
}

// Expression is one compiled CEL expression whose value is written into
// an object: a ${cel: EXPR} value, a foreach list. It is compiled in the
// environment of conditions, with their guards and their estimate of the
// worst-case cost, and evaluated with their budget. It is immutable and
// safe for concurrent use.
type Expression struct {
	compiled
	result Result
	out    *cel.Type
}

// ExpressionLimit is the cost an Expression may take, estimated when it
// compiles and counted as it runs: the budget of one owner's files on
// one object (RequestBudget), which the expression is charged to. An
// expression that builds a value out of a list the object holds (the
// names of its volumes joined) cannot be held to the per-call limit of
// conditions, which only test: its worst case reads the largest list a
// request can hold.
const ExpressionLimit = RequestBudget

// CompileExpression compiles expr, of any type, whose estimated
// worst-case cost must be within ExpressionLimit. A compile error is an
// *Error with the position of the problem in expr.
func CompileExpression(expr string, opts Options) (*Expression, error) {
	return compileExpression(expr, opts, ExpressionLimit)
}

// compileExpression is CompileExpression with the limit of the
// estimated cost.
func compileExpression(expr string, opts Options, limit uint64) (*Expression, error) {
	var out *cel.Type
	c, err := compileAs(expr, opts, limit, ExpressionLimit, func(t *cel.Type) *Error {
		out = t
		return nil
	})
	if ce, ok := err.(*Error); ok {
		ce.Msg = strings.Replace(ce.Msg, "the per-call limit", "the limit of an expression", 1)
	}
	if err != nil {
		return nil, err
	}
	return &Expression{compiled: *c, result: resultOf(out), out: out}, nil
}

// Result is the type of the expression's value as the checker gives it.
func (e *Expression) Result() Result { return e.result }

// Type is the checker's name of the type of the expression's value:
// "list(string)", "dyn".
func (e *Expression) Type() string { return e.out.String() }

// resultOf is the Result of a checked type.
func resultOf(t *cel.Type) Result {
	switch t.Kind() {
	case types.DynKind, types.AnyKind, types.TypeParamKind:
		return ResultDyn
	case types.StringKind:
		return ResultString
	case types.IntKind, types.UintKind:
		return ResultInt
	case types.DoubleKind:
		return ResultDouble
	case types.BoolKind:
		return ResultBool
	case types.NullTypeKind:
		return ResultNull
	case types.ListKind:
		return ResultList
	case types.MapKind, types.StructKind:
		return ResultMap
	}
	return ResultOther
}

// Eval evaluates the expression over vars, charging its cost to budget
// (nil: only the per-call limit), and returns its value as decoded JSON:
// a string, an int64 (json.Number beyond it), a float64, a bool, nil, a
// []any or a map[string]any, copied out of the objects it reads. Errors
// are those of Condition.Eval; an expression compiled with Options.Item
// reads the Input's Item. A value JSON cannot hold (an infinity, a
// map with keys that are not text, a type) is an ErrEvaluation.
func (e *Expression) Eval(ctx context.Context, vars *Vars, budget *Budget) (any, error) {
	val, err := e.eval(ctx, vars, budget)
	if err != nil {
		return nil, err
	}
	out, err := jsonOf(val)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvaluation, err)
	}
	return out, nil
}

// jsonOf is a CEL value as decoded JSON.
func jsonOf(v ref.Val) (any, error) {
	switch x := v.(type) {
	case types.String:
		return string(x), nil
	case types.Int:
		return int64(x), nil
	case types.Uint:
		if uint64(x) > math.MaxInt64 {
			return json.Number(strconv.FormatUint(uint64(x), 10)), nil
		}
		return int64(x), nil
	case types.Double:
		f := float64(x)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("the value %v cannot be held in a Kubernetes object (JSON has no infinity or NaN)", f)
		}
		return f, nil
	case types.Bool:
		return bool(x), nil
	case types.Null:
		return nil, nil
	case types.Bytes:
		return base64.StdEncoding.EncodeToString(x), nil
	case types.Duration, types.Timestamp:
		return x.ConvertToType(types.StringType).Value(), nil
	case traits.Lister:
		n, _ := x.Size().(types.Int)
		out := make([]any, 0, int(n))
		for it := x.Iterator(); it.HasNext() == types.True; {
			e, err := jsonOf(it.Next()) // a list's iterator gives its items
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	case traits.Mapper:
		n, _ := x.Size().(types.Int)
		out := make(map[string]any, int(n))
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			key, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("a map with the key %v (%s): the keys of an object's maps are text", k, k.Type())
			}
			e, err := jsonOf(x.Get(k))
			if err != nil {
				return nil, err
			}
			out[string(key)] = e
		}
		return out, nil
	}
	return nil, fmt.Errorf("a value of type %s, which no field of an object holds", v.Type())
}
