package kpatch

import "errors"

// Bind returns the patch bound to vars, as WithVariables does, after
// checking every value that reads a variable the way Compile checks
// constants: a variable that is undefined or not a scalar, or a value
// that does not fit its field on the current API versions of a built-in
// kind, is an error (an ErrorList of *ParseError; the patch is then nil);
// so is a variable of the file's enabled metadata without a value.
// A registry calls it once the values are known, so that such a file is
// reported when it is loaded instead of failing on every object. A value
// that reads a built-in is checked only when vars give the built-ins
// (Variables.Builtins); without them, it is checked as it applies.
func (p *Patch) Bind(vars *Variables) (*Patch, error) {
	q := p.WithVariables(vars)
	errs := q.variableProblems()
	if err := q.enabledProblem(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		sortErrors(errs)
		return nil, errs
	}
	return q, nil
}

// deferred reports whether a problem is a built-in, an item or a CEL
// value read without the object: Bind checks such a value when the
// object is known, at apply.
func deferred(err *problem) bool {
	return err != nil && (errors.Is(err.err, errNoBuiltins) || errors.Is(err.err, errNoObject)) || deferredItem(err)
}

// Variables returns the variables the patch is bound to; nil when it is
// not bound. The caller must not modify them.
func (p *Patch) Variables() *Variables { return p.vars }

// variableProblems resolves every value that reads a variable, on each
// checked version of its kind, and reports the values that fail on all.
func (p *Patch) variableProblems() ErrorList {
	var errs ErrorList
	add := func(err *problem) {
		if err != nil {
			errs = append(errs, err.parseError(p.name))
		}
	}
	var ex expansion // as if every entry applied to one object once
	for _, s := range p.sections {
		if s.merge != nil {
			add(s.merge.variableProblem(s.checked, p.vars, &ex))
		}
		for _, op := range s.ops {
			add(op.variableProblem(s.checked, p.vars, &ex))
		}
	}
	return errs
}

// variableProblem is the first problem of the operation's values when
// they fail on every checked plan that compiled.
func (op *operation) variableProblem(checked int, vars *Variables, ex *expansion) *problem {
	var first *problem
	for _, pl := range op.checkedPlans(checked) {
		if pl.err != nil {
			continue
		}
		try := *ex
		err := pl.valueProblem(vars, &try)
		if err == nil {
			*ex = try
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// valueProblem resolves a plan's value and those of the entries that
// build its item, and returns the first that fails, placed.
func (pl *plan) valueProblem(vars *Variables, ex *expansion) *problem {
	for _, q := range append([]*plan{pl}, pl.build...) {
		if q.tmpl == nil {
			continue
		}
		v, err := q.resolveValue(q.leaf, vars, ex)
		if err == nil {
			err = q.checkImagePart(v)
		}
		if deferred(err) {
			continue
		}
		if err != nil {
			return err.orAt(q.line, q.valueCol)
		}
	}
	return nil
}

func (op *mergeOp) variableProblem(checked int, vars *Variables, ex *expansion) *problem {
	if !op.templated {
		return nil
	}
	var first *problem
	for _, mp := range op.checkedPlans(checked) {
		try := *ex
		_, err := op.patchFor(mp, nil, vars, &try)
		if err == nil || deferred(err) {
			*ex = try
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}
