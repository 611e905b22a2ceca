package replacement

import (
	"regexp"

	"kpatch.dev/kpatch/pkg/specificity"
)

// Specificity ranks the replacements as a patch file's targets rank
// (package specificity): by the least specific select of their targets,
// each of its name, namespace and kind any (not given), a glob (a
// regular expression such as web-.*) or literal. So a replacements file
// that selects every Job applies, within a layer, with the files that
// target kind.*, before those that target one Job by name.
func (r *Replacements) Specificity() specificity.Specificity {
	var out specificity.Specificity
	first := true
	for _, rp := range r.items {
		for _, t := range rp.targets {
			id := t.sel.sel.id
			s := specificity.Specificity{Name: selectRank(id.Name), Namespace: selectRank(id.Namespace), Kind: selectRank(id.Kind)}
			if first || s.Compare(out) < 0 {
				out, first = s, false
			}
		}
	}
	return out
}

// selectRank ranks one field of a select.
func selectRank(v string) specificity.Rank {
	switch {
	case v == "":
		return specificity.Any
	case regexp.QuoteMeta(v) != v:
		return specificity.Glob
	}
	return specificity.Literal
}
