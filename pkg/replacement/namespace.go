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
