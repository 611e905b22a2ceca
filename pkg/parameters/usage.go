package parameters

import (
	"slices"
	"strings"
)

// Usage is what a lint reports about a schema and the patch files that
// read it.
type Usage struct {
	// Unused are the declared parameters that no reference reads, in
	// declaration order. A parameter that another's default uses counts
	// as read.
	Unused []*Parameter
	// Undeclared are the references that read no declared parameter,
	// sorted, each once: an unknown name, or a name read in the wrong
	// scope (${values.canary} for the feature canary). Built-ins are
	// never undeclared.
	Undeclared []string
}

// Usage compares the schema with the references that patch files read,
// each as "values.NAME", "features.NAME" or a built-in such as
// "object.name" (with or without ${}). Without a schema there is nothing
// to compare: the Usage is empty.
func (s *Schema) Usage(refs []string) Usage {
	var u Usage
	if s == nil {
		return u
	}
	used := make([]bool, len(s.params))
	for _, p := range s.params {
		for _, pt := range p.tmpl {
			if pt.ref != nil {
				used[s.byName[pt.ref.Path[0]].index] = true
			}
		}
	}
	undeclared := map[string]bool{}
	for _, ref := range refs {
		ref = strings.TrimSuffix(strings.TrimPrefix(ref, "${"), "}")
		if IsBuiltin(ref) {
			continue
		}
		if p, ok := s.ForRef(ref); ok {
			used[p.index] = true
		} else {
			undeclared[ref] = true
		}
	}
	for _, p := range s.params {
		if !used[p.index] {
			u.Unused = append(u.Unused, p)
		}
	}
	for ref := range undeclared {
		u.Undeclared = append(u.Undeclared, ref)
	}
	slices.Sort(u.Undeclared)
	return u
}
