package parameters

import "strings"

// linkDefaults checks the parameters that defaults use and orders the
// parameters so that each comes after those its default uses: a depth
// first walk in declaration order, linear in parameters and references.
// A cycle is an error naming it.
func (b *schemaBuilder) linkDefaults() {
	s := b.schema
	deps := make([][]*Parameter, len(s.params))
	for _, p := range s.params {
		for _, pt := range p.tmpl {
			if pt.ref == nil {
				continue
			}
			if dep := b.defaultUses(p, pt.ref, len(p.tmpl) == 1); dep != nil {
				deps[p.index] = append(deps[p.index], dep)
			}
		}
	}
	const (
		unvisited = iota
		visiting
		done
	)
	state := make([]int, len(s.params))
	var stack []*Parameter
	var visit func(p *Parameter)
	visit = func(p *Parameter) {
		state[p.index] = visiting
		stack = append(stack, p)
		for _, d := range deps[p.index] {
			switch state[d.index] {
			case unvisited:
				visit(d)
			case visiting:
				b.cycle(stack, d)
			}
		}
		stack = stack[:len(stack)-1]
		state[p.index] = done
		s.order = append(s.order, p)
	}
	for _, p := range s.params {
		if state[p.index] == unvisited {
			visit(p)
		}
	}
}

// cycle reports the cycle from d to the top of the stack and back to d.
func (b *schemaBuilder) cycle(stack []*Parameter, d *Parameter) {
	start := len(stack) - 1
	for stack[start] != d {
		start--
	}
	names := make([]string, 0, len(stack)-start+1)
	for _, p := range stack[start:] {
		names = append(names, p.name)
	}
	names = append(names, d.name)
	b.errs.addf(d.defSrc, d.name, ErrCycle, "defaults form a cycle: %s", strings.Join(names, " -> "))
}

// defaultUses checks one reference of p's default and returns the
// parameter it reads. whole is a default that is exactly the reference:
// it takes that parameter's type; otherwise the default is text.
func (b *schemaBuilder) defaultUses(p *Parameter, ref *reference, whole bool) *Parameter {
	fail := func(sentinel error, format string, args ...any) *Parameter {
		b.errs.addf(p.defSrc, p.name, sentinel, "default uses ${%s}: "+format, append([]any{ref}, args...)...)
		return nil
	}
	dep, ok := b.schema.byName[ref.Path[0]]
	_, declared := b.declared[ref.Path[0]]
	switch {
	case !ok && declared:
		return nil // its declaration has errors, reported there
	case !ok:
		return fail(ErrUndeclared, "%s is not declared", quoteText(ref.Path[0]))
	case dep.typ.Scope() != ref.Scope:
		return fail(ErrUndeclared, "%s is %s parameter, read as ${%s}", dep.name, dep.typ.article(), dep.Ref())
	case len(ref.Path) > 1 && dep.typ != Object:
		return fail(ErrType, "%s is %s, not an object", dep.name, dep.typ.article())
	case len(ref.Path) > 1:
		return dep // the type of a key inside an object is checked on resolving
	case whole && dep.typ != p.typ && !(p.typ == Number && dep.typ == Integer):
		return fail(ErrType, "%s is %s; this parameter is %s", dep.name, dep.typ.article(), p.typ.article())
	case !whole && p.typ != String:
		return fail(ErrType, "a default that mixes text and variables is text; this parameter is %s", p.typ.article())
	case !whole && (dep.typ == Array || dep.typ == Object):
		return fail(ErrType, "%s is %s, which cannot be spliced into text", dep.name, dep.typ.article())
	}
	return dep
}
