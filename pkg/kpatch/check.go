package kpatch

// Check reports, without an object, what Compile leaves open. When the
// patch is bound to variables (WithVariables), a value that reads one and
// cannot apply on the current versions of its kind: an undefined
// variable, a map or list, a value that does not fit its field (what
// Bind refuses). And, as warnings that wrap ErrNotIdempotent, the
// constructs that change the object again each time the file runs (see
// idempotenceWarnings). The problems are *ParseError values, in file
// order.
func (p *Patch) Check() ErrorList {
	errs := p.idempotenceWarnings()
	if p.vars != nil {
		errs = append(errs, p.variableProblems()...)
	}
	sortErrors(errs)
	return errs
}
