package kpatch

import (
	"slices"
	"strings"
)

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
		if s.merge != nil && s.target.kindForm() == kindSet {
			errs = append(errs, errorf(ErrSyntax, "@workload takes field entries, whose paths start at the pod spec; a merge patch is written for each kind").at(s.targetPos.Line, s.targetPos.Column).parseError(p.name))
			continue
		}
		if s.merge != nil {
			if err := s.merge.problem(s.checked); err != nil {
				errs = append(errs, err.parseError(p.name))
			}
			continue
		}
		for _, op := range slices.Concat(s.ops, s.required) {
			if err := op.problem(s.checked); err != nil {
				errs = append(errs, s.namingKinds(err).parseError(p.name))
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
// object: the first of the checked plans (indexes into its schemas) that
// compiled.
func (op *operation) plan(checked []int) *plan {
	if len(op.schemas) == 0 {
		return op.generic
	}
	plans := make([]*plan, len(checked))
	for i, j := range checked {
		plans[i] = op.schemas[j]
	}
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

// namingKinds adds to the problem of an operation of a target of several
// kinds the kinds it was checked against: it is a problem because none
// of them has the path.
func (s *section) namingKinds(err *problem) *problem {
	if s.target.kindForm() != kindGlob {
		return err
	}
	var kinds []string
	for _, ks := range s.kinds[:s.checked] {
		if !slices.Contains(kinds, ks.gvk.Kind) {
			kinds = append(kinds, ks.gvk.Kind)
		}
	}
	q := *err
	q.msg += " (" + s.target.Kind + " matches " + strings.Join(kinds, ", ") + ": none of them has it)"
	return &q
}

// standIn is the plan that stands for an operation of the section in
// checks that look at one: that of its first kind.
func (s *section) standIn(op *operation) *plan {
	if kinds := s.writeKinds(); len(kinds) > 0 {
		return op.plan(kinds[0].checked)
	}
	return op.generic
}
