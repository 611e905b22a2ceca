package condition

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/functions"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// The functions whose result can be larger than what they read (replace,
// split, join, format, findAll, flatten, the list functions that copy a
// list, which may be a concatenation of one list many times over, and
// the regex functions, which compile a pattern read at run time at each
// call) are guarded: each refuses, before it builds anything, a result whose
// building alone would cost more than the per-call limit. CEL charges a
// call's cost after it ran, so the charge alone (costEstimator.CallCost)
// would come after the memory is taken; with the guards no call of an
// evaluation takes more than the limit allows, and the calls before it
// were charged for theirs.

const (
	// costPerByte is what building a byte of text costs: as CEL charges
	// a character it reads.
	costPerByte = common.StringTraversalCostFactor
	// maxBuiltBytes is the longest text one call may build: what costs
	// the per-call limit.
	maxBuiltBytes = uint64(celconfig.PerCallLimit / costPerByte)
	// maxBuiltItems is the longest list one call may build, an item
	// costing 1 (as CEL charges the lists it builds).
	maxBuiltItems = uint64(celconfig.PerCallLimit)
)

// errTooLarge is the cause of a call refused by its guard.
var errTooLarge = errors.New("the result would cost more than the per-call limit")

// guard checks the arguments of a call before it runs: errTooLarge when
// its result would be too large.
type guard func(args []ref.Val) error

// guards are the guards of the guarded functions, by overload ID, or by
// function name for functions of many overloads (sort by element type).
var guards = map[string]guard{
	"string_replace_string_string":     guardReplace,
	"string_replace_string_string_int": guardReplace,
	"string_split_string":              guardSplit,
	"string_split_string_int":          guardSplit,
	"list_join":                        guardJoin,
	"list_join_string":                 guardJoin,
	"string_format":                    guardFormat,
	"list_flatten":                     guardFlatten,
	"list_flatten_int":                 guardFlatten,
	"string_find_all_string":           both(guardPattern, guardFindAll),
	"string_find_all_string_int":       both(guardPattern, guardFindAll),
	"string_find_string":               guardPattern,
	"matches":                          guardPattern,
	"matches_string":                   guardPattern,
	"sort":                             guardListCopy,
	"@sortByAssociatedKeys":            guardListCopy,
	"distinct":                         guardListCopy,
	"reverse":                          guardListCopy,
	"slice":                            guardSlice,
}

// guardCalls is the decorator of a program of env that runs the guards
// before the calls to the guarded functions: the guard, then the
// function's own implementation.
func guardCalls(env *cel.Env) (interpreter.InterpretableDecorator, error) {
	impls := map[string]*functions.Overload{} // by overload ID and function name
	for name, fn := range env.Functions() {
		bindings, err := fn.Bindings()
		if err != nil {
			return nil, err
		}
		for _, b := range bindings {
			if guards[name] != nil || guards[b.Operator] != nil {
				impls[b.Operator] = b
			}
		}
	}
	return func(i interpreter.Interpretable) (interpreter.Interpretable, error) {
		call, ok := i.(interpreter.InterpretableCall)
		if !ok {
			return i, nil
		}
		g, impl := guards[call.OverloadID()], impls[call.OverloadID()]
		if g == nil {
			g = guards[call.Function()]
		}
		if impl == nil {
			impl = impls[call.Function()]
		}
		if g == nil || impl == nil {
			return i, nil
		}
		return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
			if err := g(args); err != nil {
				return types.WrapErr(err)
			}
			return invoke(impl, args)
		}), nil
	}, nil
}

// invoke calls the implementation of an overload that takes args.
func invoke(impl *functions.Overload, args []ref.Val) ref.Val {
	switch {
	case len(args) == 1 && impl.Unary != nil:
		return impl.Unary(args[0])
	case len(args) == 2 && impl.Binary != nil:
		return impl.Binary(args[0], args[1])
	case impl.Function != nil:
		return impl.Function(args...)
	}
	return types.NoSuchOverloadErr()
}

// both runs a, then b.
func both(a, b guard) guard {
	return func(args []ref.Val) error {
		if err := a(args); err != nil {
			return err
		}
		return b(args)
	}
}

func tooManyBytes(function string, n uint64) error {
	if n <= maxBuiltBytes {
		return nil
	}
	return fmt.Errorf("%w: %s would build %d bytes, more than the %d one call may", errTooLarge, function, n, maxBuiltBytes)
}

func tooManyItems(function string, n uint64) error {
	if n <= maxBuiltItems {
		return nil
	}
	return fmt.Errorf("%w: %s would build a list of %d items, more than the %d one call may", errTooLarge, function, n, maxBuiltItems)
}

// stringArg is args[i] as a string, "" when it is not one (the call
// fails on its own).
func stringArg(args []ref.Val, i int) string {
	if i < len(args) {
		s, _ := args[i].(types.String)
		return string(s)
	}
	return ""
}

// intArg is args[i] as an int, or -1 (all) when absent.
func intArg(args []ref.Val, i int) int64 {
	if i < len(args) {
		if n, ok := args[i].(types.Int); ok {
			return int64(n)
		}
	}
	return -1
}

// occurrences counts old in s as strings.Replace and strings.Split do:
// an empty old matches before each character and at the end.
func occurrences(s, old string) uint64 {
	if old == "" {
		return uint64(utf8.RuneCountInString(s)) + 1
	}
	return uint64(strings.Count(s, old))
}

// guardReplace: s.replace(old, new[, n]) builds s with n (all) of old
// replaced.
func guardReplace(args []ref.Val) error {
	s, old, repl := stringArg(args, 0), stringArg(args, 1), stringArg(args, 2)
	if len(repl) <= len(old) {
		return nil
	}
	count := occurrences(s, old)
	if n := intArg(args, 3); n >= 0 && uint64(n) < count {
		count = uint64(n)
	}
	return tooManyBytes("replace", addSat(uint64(len(s)), mulSat(count, uint64(len(repl)-len(old)))))
}

// guardSplit: s.split(sep[, n]) builds a list of the parts.
func guardSplit(args []ref.Val) error {
	s, sep := stringArg(args, 0), stringArg(args, 1)
	parts := occurrences(s, sep)
	if sep != "" {
		parts++
	} else {
		parts-- // one per character
	}
	if n := intArg(args, 2); n >= 0 && uint64(n) < parts {
		parts = uint64(n)
	}
	return tooManyItems("split", parts)
}

// guardJoin: list.join([sep]) builds the items with sep between them.
func guardJoin(args []ref.Val) error {
	list, ok := args[0].(traits.Lister)
	if !ok {
		return nil
	}
	sep := uint64(len(stringArg(args, 1)))
	var n uint64
	for it := list.Iterator(); it.HasNext() == types.True; {
		s, _ := it.Next().(types.String)
		n = addSat(n, uint64(len(s))+sep)
		if n > maxBuiltBytes {
			break
		}
	}
	return tooManyBytes("join", n)
}

// guardFindAll: s.findAll(re[, n]) builds a list of up to n matches, of
// which s may hold one per character and one more.
func guardFindAll(args []ref.Val) error {
	matches := uint64(utf8.RuneCountInString(stringArg(args, 0))) + 1
	if n := intArg(args, 2); n >= 0 && uint64(n) < matches {
		matches = uint64(n)
	}
	return tooManyItems("findAll", matches)
}

// regexInstBytes is about the most Go's regexp takes per instruction of
// the program it compiles a pattern into (measured: 100 to 400 bytes).
const regexInstBytes = 512

// guardPattern: matches, find and findAll compile their pattern (args[1])
// at each call when it is not a literal (a literal one is compiled with
// the program, and checked first: literalPatterns).
func guardPattern(args []ref.Val) error {
	return patternTooLarge(stringArg(args, 1))
}

// patternTooLarge refuses a regex whose program would take more than
// one call may build: a few bytes of pattern can make a thousand
// instructions (.{1000}), so they are counted from its syntax, before it
// compiles.
func patternTooLarge(pattern string) error {
	if uint64(len(pattern)) > maxBuiltBytes/regexInstBytes {
		return tooManyBytes("compiling a regex", mulSat(uint64(len(pattern)), regexInstBytes))
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil // the call fails on its own
	}
	return tooManyBytes("compiling a regex", mulSat(regexInsts(re), regexInstBytes))
}

// literalPatterns refuses the literal patterns of matches, find and
// findAll in a parsed expression whose program would be too large, at
// the pattern: they are compiled when the expression is checked.
func literalPatterns(parsed *ast.AST) *Error {
	for _, e := range ast.MatchDescendants(ast.NavigateAST(parsed), ast.KindMatcher(ast.CallKind)) {
		call := e.AsCall()
		args := call.Args()
		i := 0 // s.matches(re)
		if !call.IsMemberFunction() {
			i = 1 // matches(s, re)
		}
		switch call.FunctionName() {
		case "matches", "find", "findAll":
		default:
			continue
		}
		if i >= len(args) || args[i].Kind() != ast.LiteralKind {
			continue
		}
		pattern, ok := args[i].AsLiteral().(types.String)
		if !ok {
			continue
		}
		if err := patternTooLarge(string(pattern)); err != nil {
			loc := parsed.SourceInfo().GetStartLocation(args[i].ID())
			return &Error{Line: max(loc.Line(), 1), Column: loc.Column() + 1, Msg: strings.TrimPrefix(err.Error(), errTooLarge.Error()+": ")}
		}
	}
	return nil
}

// regexInsts bounds the instructions of the program of re, as Go's
// regexp compiles it: a repeat counts its operand as many times.
func regexInsts(re *syntax.Regexp) uint64 {
	var sub uint64
	for _, s := range re.Sub {
		sub = addSat(sub, regexInsts(s))
	}
	switch re.Op {
	case syntax.OpLiteral:
		return uint64(len(re.Rune)) + 1
	case syntax.OpRepeat:
		times := re.Max
		if times < 0 {
			times = re.Min + 1
		}
		return addSat(mulSat(uint64(max(times, 1)), sub), 2)
	}
	return addSat(sub, uint64(len(re.Sub))+2)
}

// guardFlatten: list.flatten([depth]) builds a list of the items of its
// lists, depth levels down (1 without).
func guardFlatten(args []ref.Val) error {
	depth := intArg(args, 1)
	if len(args) < 2 {
		depth = 1
	}
	return tooManyItems("flatten", flattened(args[0], depth, 0))
}

// flattened counts the items v flattens into at depth, stopping past
// maxBuiltItems.
func flattened(v ref.Val, depth int64, sofar uint64) uint64 {
	list, ok := v.(traits.Lister)
	if !ok || depth < 0 {
		return sofar + 1
	}
	for it := list.Iterator(); it.HasNext() == types.True && sofar <= maxBuiltItems; {
		sofar = flattened(it.Next(), depth-1, sofar)
	}
	return sofar
}

// guardListCopy: sort, distinct and reverse copy their list, which may
// be one concatenated many times over (a + a + ...).
func guardListCopy(args []ref.Val) error {
	list, ok := args[0].(traits.Lister)
	if !ok {
		return nil
	}
	n, _ := list.Size().(types.Int)
	return tooManyItems("a list function", uint64(max(n, 0)))
}

// guardSlice: list.slice(start, end) copies end-start items.
func guardSlice(args []ref.Val) error {
	return tooManyItems("slice", uint64(max(intArg(args, 2)-intArg(args, 1), 0)))
}

// guardFormat: fmt.format(args) builds fmt with each %-clause replaced by
// its argument, which formatBound bounds.
func guardFormat(args []ref.Val) error {
	format := stringArg(args, 0)
	precision := maxPrecision(format)
	n := uint64(len(format))
	if list, ok := args[1].(traits.Lister); ok {
		for it := list.Iterator(); it.HasNext() == types.True && n <= maxBuiltBytes; {
			n = addSat(n, formatBound(it.Next(), precision))
		}
	}
	return tooManyBytes("format", n)
}

// maxPrecision is the largest precision of a %.N clause of format.
func maxPrecision(format string) uint64 {
	var largest uint64
	for i := 0; i+2 < len(format); i++ {
		if format[i] != '%' || format[i+1] != '.' {
			continue
		}
		var p uint64
		for j := i + 2; j < len(format) && format[j] >= '0' && format[j] <= '9'; j++ {
			p = addSat(mulSat(p, 10), uint64(format[j]-'0'))
		}
		largest = max(largest, p)
	}
	return largest
}

// formatBound bounds the text a %-clause makes of v: text at most twice
// its length (%x), a number at most 400 characters and its precision, a
// list or map its items' with separators.
func formatBound(v ref.Val, precision uint64) uint64 {
	switch v := v.(type) {
	case types.String:
		return 2*uint64(len(v)) + 2
	case types.Bytes:
		return 2*uint64(len(v)) + 2
	case traits.Mapper:
		n := uint64(2)
		for it := v.Iterator(); it.HasNext() == types.True && n <= maxBuiltBytes; {
			k := it.Next()
			n = addSat(n, addSat(formatBound(k, precision), formatBound(v.Get(k), precision)+4))
		}
		return n
	case traits.Lister:
		n := uint64(2)
		for it := v.Iterator(); it.HasNext() == types.True && n <= maxBuiltBytes; {
			n = addSat(n, formatBound(it.Next(), precision)+2)
		}
		return n
	}
	return addSat(400, precision)
}

func addSat(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func mulSat(a, b uint64) uint64 {
	if b != 0 && a > math.MaxUint64/b {
		return math.MaxUint64
	}
	return a * b
}

// findAllOptimization compiles a constant regex of findAll once, as the
// Kubernetes library's does, and runs the guard: it replaces the
// library's, which would call findAll without it.
var findAllOptimization = &interpreter.RegexOptimization{
	Function:   "findAll",
	RegexIndex: 1,
	Factory: func(call interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, err
		}
		return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
			s, ok := args[0].(types.String)
			if !ok || len(args) < 2 || len(args) > 3 {
				return types.NoSuchOverloadErr()
			}
			if err := guardFindAll(args); err != nil {
				return types.WrapErr(err)
			}
			return types.NewStringList(types.DefaultTypeAdapter, re.FindAllString(string(s), int(intArg(args, 2))))
		}), nil
	},
}
