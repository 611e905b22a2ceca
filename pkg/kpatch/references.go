package kpatch

import (
	"maps"
	"slices"
	"strings"
)

// Reference is one variable a patch file reads, and where: an entry's
// value, or the string of a structured value or merge patch of a YAML
// patch file (placed at its entry).
type Reference struct {
	Var *VarRef
	Pos Position
}

// References returns the variables the file reads, in the order of its
// syntax tree: its enabled metadata, merge patches, then each section's
// entries.
func (f *File) References() []Reference {
	var refs []Reference
	at := func(line, col int) Position { return Position{File: f.Name, Line: line, Column: col} }
	if e := f.Metadata.Enabled; e != nil {
		for _, part := range e.Value.Parts {
			if part.Var != nil && part.Var.CEL == nil {
				refs = append(refs, Reference{Var: part.Var, Pos: e.Pos})
			}
		}
	}
	for _, m := range f.Merges {
		refs = appendTreeReferences(refs, m.Patch, at(m.Line, m.Col))
	}
	for _, s := range f.Sections {
		for _, e := range s.Entries {
			pos := at(e.Line, e.ValueCol)
			for _, part := range e.Value.Parts {
				if part.Var != nil && part.Var.CEL == nil {
					refs = append(refs, Reference{Var: part.Var, Pos: pos})
				}
			}
			refs = appendTreeReferences(refs, e.Value.Tree, pos)
		}
	}
	return refs
}

// appendTreeReferences appends the variables of the strings of a
// structured value, all placed at pos. Keys are visited in sorted order.
func appendTreeReferences(refs []Reference, v any, pos Position) []Reference {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "${") {
			return refs
		}
		parts, err := parseTemplate(x, 1)
		if err != nil {
			return refs // the engine reports it
		}
		for _, part := range parts {
			if part.Var != nil && part.Var.CEL == nil {
				refs = append(refs, Reference{Var: part.Var, Pos: pos})
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			refs = appendTreeReferences(refs, x[k], pos)
		}
	case []any:
		for _, e := range x {
			refs = appendTreeReferences(refs, e, pos)
		}
	}
	return refs
}
