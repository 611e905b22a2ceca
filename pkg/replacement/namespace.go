package replacement

import (
	"regexp"

	"kpatch.dev/kpatch/pkg/fileerr"
)

// ForeignSelect is a target whose select names a namespace other than the
// one its file is held to (HoldToNamespace).
type ForeignSelect struct {
	Pos       fileerr.Position // the target
	Namespace string           // the select's namespace, as written
}

// HoldToNamespace makes every target of r select objects of namespace ns
// only, as the files of a tenant registry must: a select that names no
// namespace is given ns; one that names ns is kept. It returns the
// targets whose select names another namespace, or a regular expression
// over namespaces (even one that ns matches): r cannot be held to ns.
func (r *Replacements) HoldToNamespace(ns string) []ForeignSelect {
	var foreign []ForeignSelect
	exact := regexp.MustCompile("^(?:" + regexp.QuoteMeta(ns) + ")$")
	for _, rp := range r.items {
		for _, t := range rp.targets {
			switch sel := t.sel.sel; sel.id.Namespace {
			case "":
				sel.id.Namespace, sel.namespace = ns, exact
			case ns:
			default:
				foreign = append(foreign, ForeignSelect{Pos: t.pos, Namespace: sel.id.Namespace})
			}
		}
	}
	return foreign
}

// TargetWrite is one field path a target of a replacements file writes,
// with the select it writes through: what a tenant's file may write is
// checked with it.
type TargetWrite struct {
	Pos    fileerr.Position // the field path (the target's, for the default path)
	Select ResID            // as written: Group and Kind may be regular expressions
	Path   string           // as written
	// Fields are the path's map keys up to its first list step (an index,
	// a match, every item); Whole says that there is none after them.
	Fields []string
	Whole  bool
}

// TargetWrites lists the field paths the targets of r write, in file
// order.
func (r *Replacements) TargetWrites() []TargetWrite {
	var out []TargetWrite
	for _, rp := range r.items {
		for _, t := range rp.targets {
			for _, p := range t.paths {
				w := TargetWrite{Pos: p.pos, Select: t.sel.sel.id, Path: p.String(), Whole: true}
				for _, st := range p.steps {
					if st.kind != stepField {
						w.Whole = false
						break
					}
					w.Fields = append(w.Fields, st.key)
				}
				out = append(out, w)
			}
		}
	}
	return out
}
