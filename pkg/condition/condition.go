package condition

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// The names of the variables a condition reads, beyond those of the API
// server's admission environment (object, oldObject, namespaceObject,
// request and params).
const (
	// PodSpecVar is the pod spec of a workload: spec of a Pod,
	// spec.template.spec of a Deployment, spec.jobTemplate.spec.template.spec
	// of a CronJob. Declared only for Options.Workload.
	PodSpecVar = "podSpec"
	// PodMetadataVar is the metadata of the same pod template.
	PodMetadataVar = "podMetadata"
	// ItemVar is one item of a list that a condition is evaluated on,
	// once per item (the items of a header that walks a list). Declared
	// only for Options.Item.
	ItemVar = "item"
)

// The sentinel causes of a condition's errors; test for them with
// errors.Is.
var (
	// ErrCostExceeded is the cause of an evaluation that ran out of its
	// per-call cost limit or of the request's Budget.
	ErrCostExceeded = errors.New("CEL cost limit exceeded")
	// ErrInvalid is the cause of every compile error (*Error): a syntax
	// error, an undeclared variable, a wrong type, an expression that is
	// not boolean.
	ErrInvalid = errors.New("invalid condition")
	// ErrEvaluation is the cause of an evaluation that failed on an
	// object (a key the object does not have, a wrong type) without
	// running out of cost.
	ErrEvaluation = errors.New("condition failed")
)

// Options say which variables a condition may read.
type Options struct {
	// Workload declares podSpec and podMetadata (files whose targets are
	// the @workload kinds).
	Workload bool
	// Item declares item (ItemVar), of any type: the condition is
	// evaluated once per item of a list, which Input.Item gives.
	Item bool
	// ItemPaths are where in object the items may be, for the estimate
	// of the worst-case cost: each the field names from object's root to
	// a list, then "@items" (spec, containers, @items), nested lists
	// likewise. item is sized as the largest item these paths reach;
	// without any, as any JSON value the request can hold.
	ItemPaths [][]string
}

// Condition is one compiled CEL condition. It is immutable and safe for
// concurrent use.
type Condition struct{ compiled }

// compiled is a compiled CEL expression, of a Condition or an
// Expression: its program and what it reads.
type compiled struct {
	expr    string
	program cel.Program
	// params are the fields of params the expression reads; wholeParams
	// says that it reads params otherwise.
	params      []string
	wholeParams bool
	// loops says that the expression has a comprehension (all, exists,
	// map, filter...): the only place where CEL checks for an interrupt,
	// so the only expressions a context's end can stop.
	loops bool
	// item are its readings of item (ItemSelections).
	item []Selection
	// managedFields says that it may read the object's
	// metadata.managedFields (ReadsManagedFields).
	managedFields bool
	// callLimit is the cost one evaluation may take.
	callLimit uint64
}

// Error is a condition that does not compile: the position is within the
// expression, 1-based, Line 1 being the expression's own line.
type Error struct {
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// Unwrap returns ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

// environments are the CEL environments of conditions, without and with
// the workload variables and item (indexed by envIndex), built once (an
// environment costs milliseconds): the API server's admission
// environment (its libraries, variables and per-call cost limit).
var environments = sync.OnceValue(func() (envs [4]*conditionEnv) {
	for i := range envs {
		envs[i] = newEnvironment(i&1 != 0, i&2 != 0)
	}
	return envs
})

// envIndex is the index in environments of the environment of opts.
func envIndex(opts Options) int {
	i := 0
	if opts.Workload {
		i |= 1
	}
	if opts.Item {
		i |= 2
	}
	return i
}

// conditionEnv is a CEL environment of conditions and the options of their
// programs: the cost estimator, and the guards of the functions that
// build large results (guardCalls).
type conditionEnv struct {
	*cel.Env
	programOptions []cel.ProgramOption
}

// estimator is the cost estimator of every condition; it is stateless.
var estimator = newCostEstimator()

func newEnvironment(workload, item bool) *conditionEnv {
	namespaceType, requestType := plugincel.BuildNamespaceType(), plugincel.BuildRequestType()
	vars := []cel.EnvOption{
		cel.Variable(plugincel.ObjectVarName, cel.DynType),
		cel.Variable(plugincel.OldObjectVarName, cel.DynType),
		cel.Variable(plugincel.NamespaceVarName, namespaceType.CelType()),
		cel.Variable(plugincel.RequestVarName, requestType.CelType()),
		cel.Variable(plugincel.ParamsVarName, cel.DynType),
	}
	if workload {
		vars = append(vars, cel.Variable(PodSpecVar, cel.DynType), cel.Variable(PodMetadataVar, cel.DynType))
	}
	if item {
		vars = append(vars, cel.Variable(ItemVar, cel.DynType))
	}
	set, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(
		environment.VersionedOptions{
			IntroducedVersion: version.MajorMinor(1, 0),
			EnvOptions:        vars,
			DeclTypes:         []*apiservercel.DeclType{namespaceType, requestType},
		},
		environment.StrictCostOpt,
	)
	if err != nil {
		panic(fmt.Sprintf("condition: the CEL environment: %v", err))
	}
	env, err := set.Env(environment.StoredExpressions)
	if err == nil {
		env, err = env.Extend(cel.CostEstimatorOptions(
			checker.OverloadCostEstimate("list_flatten", estimateFlatten),
			checker.OverloadCostEstimate("list_flatten_int", estimateFlatten),
		))
	}
	if err != nil {
		panic(fmt.Sprintf("condition: the CEL environment: %v", err))
	}
	guard, err := guardCalls(env)
	if err != nil {
		panic(fmt.Sprintf("condition: guarding the CEL functions: %v", err))
	}
	return &conditionEnv{Env: env, programOptions: []cel.ProgramOption{
		cel.InterruptCheckFrequency(celconfig.CheckFrequency),
		cel.CostTracking(estimator),
		cel.CustomDecorator(guard),
		cel.OptimizeRegex(findAllOptimization),
	}}
}

// Compile compiles expr, which must be boolean and whose estimated
// worst-case cost must be within the per-call limit (checkCost). A
// compile error is an *Error with the position of the problem in expr.
//
// A condition with Options.Item is evaluated once per item, each
// evaluation within the per-call limit and all of them within the
// owner's Budget; its estimate for one item must be within ItemCostLimit.
func Compile(expr string, opts Options) (*Condition, error) {
	if opts.Item {
		return compile(expr, opts, ItemCostLimit)
	}
	return compile(expr, opts, celconfig.PerCallLimit)
}

// ItemCostLimit is the most the estimated worst-case cost of one
// evaluation of a condition on an item (Options.Item) may be: the budget
// of a request, that every evaluation of the owner's conditions on the
// object shares. An item condition typically reads its item and looks it
// up among the object's other items (a mount's volume), a loop whose
// worst case is more than a call's limit on the largest objects the API
// server accepts and far less on any other: there it fails at run time
// with ErrCostExceeded, as any condition does past that limit.
const ItemCostLimit = RequestBudget

// compile is Compile with the limit of the estimated cost.
func compile(expr string, opts Options, limit uint64) (*Condition, error) {
	c, err := compileAs(expr, opts, limit, celconfig.PerCallLimit, func(out *cel.Type) *Error {
		if !out.IsExactType(cel.BoolType) {
			return &Error{Line: 1, Column: 1, Msg: fmt.Sprintf("must evaluate to %v but got %v", cel.BoolType, out)}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Condition{*c}, nil
}

// compileAs compiles expr in the environment of opts: parsed, checked,
// its output type accepted by check, its estimated worst-case cost
// within limit, made a program with the guards of every condition that
// stops at callLimit.
func compileAs(expr string, opts Options, limit, callLimit uint64, check func(*cel.Type) *Error) (*compiled, error) {
	env := environments()[envIndex(opts)]
	parsed, iss := env.Parse(expr)
	if iss.Err() != nil {
		return nil, compileError(expr, iss)
	}
	if err := literalPatterns(parsed.NativeRep()); err != nil {
		return nil, err
	}
	checked, iss := env.Check(parsed)
	if iss.Err() != nil {
		return nil, compileError(expr, iss)
	}
	if err := check(checked.OutputType()); err != nil {
		return nil, err
	}
	est := estimator
	if len(opts.ItemPaths) > 0 {
		est = newCostEstimator()
		est.itemPaths = opts.ItemPaths
	}
	if err := checkCost(env.Env, est, expr, checked, limit); err != nil {
		return nil, err
	}
	progOpts := env.programOptions
	if callLimit != celconfig.PerCallLimit {
		progOpts = append(slices.Clip(progOpts), cel.CostLimit(callLimit))
	}
	program, err := env.Program(checked, progOpts...)
	if err != nil {
		return nil, &Error{Line: 1, Column: 1, Msg: "program instantiation failed: " + err.Error()}
	}
	c := &compiled{expr: expr, program: program, callLimit: callLimit}
	c.params, c.wholeParams, c.loops, c.item = inspect(checked.NativeRep())
	c.managedFields = readsManagedFields(checked.NativeRep())
	return c, nil
}

// compileError turns the checker's issues into an *Error at the position
// of the first.
func compileError(expr string, iss *cel.Issues) error {
	out := &Error{Line: 1, Column: 1, Msg: iss.String()}
	if errs := iss.Errors(); len(errs) > 0 {
		first := errs[0]
		out.Line, out.Column = first.Location.Line(), first.Location.Column()+1
		out.Msg = strings.TrimSuffix(first.Message, " (in container '')")
		if strings.HasPrefix(out.Msg, "undeclared reference to '"+PodSpecVar+"'") || strings.HasPrefix(out.Msg, "undeclared reference to '"+PodMetadataVar+"'") {
			out.Msg += ": podSpec and podMetadata are the variables of @workload files"
		}
		if strings.HasPrefix(out.Msg, "undeclared reference to '"+ItemVar+"'") {
			out.Msg += ": item is the variable of a section whose header walks list items (*, k=v, allContainers)"
		}
		if n := len(errs); n > 1 {
			out.Msg += fmt.Sprintf(" (and %d more)", n-1)
		}
	} else if len(expr) == 0 {
		out.Msg = "empty expression"
	}
	return out
}

// String is the expression as written.
func (c *compiled) String() string { return c.expr }

// Eval evaluates the condition over vars, charging its cost to budget
// (nil: only the per-call limit). An evaluation error (a missing field
// read without has(), a wrong type: ErrEvaluation; the cost limit:
// ErrCostExceeded) is returned without the expression, which the caller
// places; the caller decides what the file then does.
func (c *Condition) Eval(ctx context.Context, vars *Vars, budget *Budget) (bool, error) {
	val, err := c.eval(ctx, vars, budget)
	if err != nil {
		return false, err
	}
	b, ok := val.(types.Bool)
	if !ok {
		return false, fmt.Errorf("%w: evaluated to %s, not a bool", ErrEvaluation, val.Type())
	}
	return bool(b), nil
}

// eval evaluates the expression over vars, charging its cost to budget
// (nil: only the per-call limit).
func (c *compiled) eval(ctx context.Context, vars *Vars, budget *Budget) (ref.Val, error) {
	if budget != nil && budget.exceeded() {
		return nil, fmt.Errorf("%w (per request %d, spent %d before this condition)", ErrBudgetSpent, budget.limit, budget.spent)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvaluation, err)
	}
	var (
		val     ref.Val
		details *cel.EvalDetails
		err     error
	)
	if c.loops && ctx.Done() != nil {
		// a request's deadline stops a long evaluation (one that reaches
		// the per-call limit takes a large part of a second); CEL checks
		// for it in comprehensions only
		val, details, err = c.program.ContextEval(ctx, vars)
	} else {
		// nothing to stop it but the cost limit (or nothing that CEL
		// would stop): without the context's three allocations
		val, details, err = c.program.Eval(vars)
	}
	if vars.err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvaluation, vars.err)
	}
	if details != nil && budget != nil {
		if cost := details.ActualCost(); cost != nil {
			budget.charge(*cost)
		}
	}
	if err != nil {
		if isCostError(err) {
			return nil, fmt.Errorf("%w (per call %d)", ErrCostExceeded, c.callLimit)
		}
		if errors.Is(err, errTooLarge) {
			return nil, fmt.Errorf("%w (per call %d): %w", ErrCostExceeded, c.callLimit, err)
		}
		return nil, fmt.Errorf("%w: %w", ErrEvaluation, err)
	}
	if budget != nil && budget.exceeded() {
		return nil, fmt.Errorf("%w (per request %d, spent %d)", ErrBudgetSpent, budget.limit, budget.spent)
	}
	return val, nil
}

// isCostError says whether err is cel-go's cost limit error.
func isCostError(err error) bool {
	var ee interpreter.EvalCancelledError
	return errors.As(err, &ee) && ee.Cause == interpreter.CostLimitExceeded
}
