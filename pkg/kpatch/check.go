package kpatch

// Check reports, without an object, the problems a patch has on every
// object it can match: a path or value that no API version of a built-in
// kind accepts, and, when the patch is bound to variables, a variable that
// is undefined or has the wrong type. Custom resource kinds are not
// checked. The problems are *ParseError values, in file order.
func (p *Patch) Check() ErrorList {
	var errs ErrorList
	report := func(pl *plan, col int, err *problem) {
		errs = append(errs, &ParseError{Pos: Position{File: p.name, Line: pl.line, Column: col}, Err: err.err, Msg: err.msg})
	}
	for _, s := range p.sections {
		for _, op := range s.ops {
			plans := op.schemas
			if len(plans) == 0 {
				plans = []*plan{op.generic}
			}
			var ok *plan
			for _, pl := range plans {
				if pl.err == nil {
					ok = pl
					break
				}
			}
			if ok == nil {
				report(plans[0], plans[0].errCol, plans[0].err)
				continue
			}
			if p.vars == nil {
				continue
			}
			for _, pl := range append([]*plan{ok}, ok.build...) {
				if _, err := pl.resolveValue(p.vars); err != nil {
					report(pl, pl.valueCol, err)
				}
			}
		}
	}
	sortErrors(errs)
	return errs
}
