package parameters

import (
	"slices"
	"strings"
)

// Schema is a compiled parameters.yaml: the typed parameters a set of
// patch files accepts. It is immutable and safe for concurrent use. A nil
// *Schema is no schema: values are an untyped bag, as without a
// parameters.yaml.
type Schema struct {
	params []*Parameter          // declaration order
	byName map[string]*Parameter // by name
	order  []*Parameter          // declaration order with every default's parameters first
}

// Parameters returns the parameters in declaration order. The caller must
// not modify the slice.
func (s *Schema) Parameters() []*Parameter {
	if s == nil {
		return nil
	}
	return s.params
}

// Lookup returns the parameter declared under name.
func (s *Schema) Lookup(name string) (*Parameter, bool) {
	if s == nil {
		return nil, false
	}
	p, ok := s.byName[name]
	return p, ok
}

// ForRef returns the parameter that a reference such as "values.db.host"
// or "${features.canary}" reads: the one its first name declares, in the
// scope of its type.
func (s *Schema) ForRef(ref string) (*Parameter, bool) {
	r, p := parseReference(strings.TrimSuffix(strings.TrimPrefix(ref, "${"), "}"))
	if p != nil {
		return nil, false
	}
	param, ok := s.Lookup(r.Path[0])
	if !ok || param.typ.Scope() != r.Scope {
		return nil, false
	}
	return param, true
}

// Names returns the declared names, in declaration order.
func (s *Schema) Names() []string {
	out := make([]string, 0, len(s.Parameters()))
	for _, p := range s.Parameters() {
		out = append(out, p.name)
	}
	return out
}

// sortBySource orders errors of one file by line and column.
func sortBySource(errs []error) {
	slices.SortStableFunc(errs, func(a, b error) int {
		sa, sb := a.(*Error).Source, b.(*Error).Source
		if sa.Line != sb.Line {
			return sa.Line - sb.Line
		}
		return sa.Column - sb.Column
	})
}

// Inputs returns the declared parameters whose values decide those of
// names: each declared name, and every parameter that their defaults
// read, transitively, in declaration order. Undeclared names are left
// out. A webhook reads, for a patch file, only the annotations of these.
func (s *Schema) Inputs(names ...string) []string {
	if s == nil {
		return nil
	}
	in := make([]bool, len(s.params))
	var visit func(p *Parameter)
	visit = func(p *Parameter) {
		if in[p.index] {
			return
		}
		in[p.index] = true
		for _, pt := range p.tmpl {
			if pt.ref != nil {
				visit(s.byName[pt.ref.Path[0]])
			}
		}
	}
	for _, n := range names {
		if p, ok := s.byName[n]; ok {
			visit(p)
		}
	}
	var out []string
	for _, p := range s.params {
		if in[p.index] {
			out = append(out, p.name)
		}
	}
	return out
}
