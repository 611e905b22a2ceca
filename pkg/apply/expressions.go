package apply

import (
	"kpatch.dev/kpatch/pkg/condition"
	"kpatch.dev/kpatch/pkg/kpatch"
)

var _ kpatch.ExpressionEvaluator = (*Object)(nil)

// EvalExpression evaluates a CEL value or foreach list of the file being
// applied (kpatch.ApplyOptions.Expressions) with the variables of its
// conditions, params being the file's values, charged to the budget of
// the file's owner on the object, as its conditions are.
func (o *Object) EvalExpression(e *condition.Expression, params map[string]any, item *any) (any, error) {
	cs := o.conditions()
	cs.in.Params, cs.in.Item = params, nil
	if item != nil {
		cs.in.Item = *item
	}
	return e.Eval(o.ctx, cs.vars, cs.budget(o.owner, o.adm.CostBudget))
}
