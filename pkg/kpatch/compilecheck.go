package kpatch

// problems are what Compile reports, in file order: for each section, the
// target's problem, or every operation that fails on each checked
// version of its kind.
func (p *Patch) problems() ErrorList {
	var errs ErrorList
	for _, s := range p.sections {
		if err := targetProblem(&s.target); err != nil {
			errs = append(errs, err.at(s.targetPos.Line, s.targetPos.Column).parseError(p.name))
			continue
		}
		if s.merge != nil {
			if err := s.merge.problem(s.checked); err != nil {
				errs = append(errs, err.parseError(p.name))
			}
			continue
		}
		for _, op := range s.ops {
			if err := op.problem(s.checked); err != nil {
				errs = append(errs, err.parseError(p.name))
			}
		}
	}
	sortErrors(errs)
	return errs
}

// checkedPlans are the plans an operation is held to: those of the
// current versions of its kind, or the generic plan of a kind without a
// schema.
func (op *operation) checkedPlans(checked int) []*plan {
	if len(op.schemas) == 0 {
		return []*plan{op.generic}
	}
	return op.schemas[:checked]
}

// problem is the operation's problem when every checked plan fails: the
// first one's.
func (op *operation) problem(checked int) *problem {
	plans := op.checkedPlans(checked)
	for _, pl := range plans {
		if pl.err == nil {
			return nil
		}
	}
	return plans[0].err
}

// plan is the plan that stands for the operation in checks without an
// object: the first checked plan that compiled.
func (op *operation) plan(checked int) *plan {
	plans := op.checkedPlans(checked)
	for _, pl := range plans {
		if pl.err == nil {
			return pl
		}
	}
	return plans[0]
}

func (op *mergeOp) checkedPlans(checked int) []*mergePlan {
	if len(op.schemas) == 0 {
		return []*mergePlan{op.generic}
	}
	return op.schemas[:checked]
}

func (op *mergeOp) problem(checked int) *problem {
	plans := op.checkedPlans(checked)
	for _, mp := range plans {
		if mp.err == nil {
			return nil
		}
	}
	return plans[0].err
}
