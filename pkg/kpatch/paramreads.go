package kpatch

import "kpatch.dev/kpatch/pkg/condition"

// ParamRead is a parameter that a patch's CEL reads as params: its
// conditions, its ${cel: } values, its foreach lists. Name is the field
// of params selected (params.tier, params['tier']); Whole says that the
// expression reads params as a whole, or by a computed key, so that any
// parameter may count. Pos is where the expression is written.
type ParamRead struct {
	Name  string
	Whole bool
	Pos   Position
}

// ParamReads are what the patch's CEL reads of params, expression by
// expression in file order (conditions first), each expression once:
// what kpatch lint --parameters and kpatch params count as reading a
// parameter beside ${values.NAME} (File.References).
func (p *Patch) ParamReads() []ParamRead {
	var out []ParamRead
	add := func(names []string, whole bool, pos Position) {
		for _, n := range names {
			out = append(out, ParamRead{Name: n, Pos: pos})
		}
		if whole {
			out = append(out, ParamRead{Whole: true, Pos: pos})
		}
	}
	for _, c := range p.conds {
		names, whole := c.Params()
		add(names, whole, c.Pos)
	}
	p.eachExpression(func(e *condition.Expression, pos Position) {
		names, whole := e.Params()
		add(names, whole, pos)
	})
	return out
}
