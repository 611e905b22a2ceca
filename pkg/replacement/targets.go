package replacement

import "regexp"

// Targets reports whether a target of the replacements selects obj (as
// Apply and ApplyObject decide it), namespace standing for a missing
// metadata.namespace.
func (r *Replacements) Targets(obj map[string]any, namespace string) bool {
	id := idOf(obj, namespace)
	for _, rp := range r.items {
		if rp.targetsObject(obj, id) {
			return true
		}
	}
	return false
}

// Kinds returns the kinds the targets' selects name literally, and
// whether some select may match other kinds too (no kind, or a kind that
// is a regular expression such as Deployment|StatefulSet): what a registry
// needs to index the file by kind, so that a request no replacement
// targets is answered without decoding its object.
func (r *Replacements) Kinds() (kinds []string, anyKind bool) {
	seen := map[string]bool{}
	for _, rp := range r.items {
		for _, t := range rp.targets {
			k := t.sel.sel.id.Kind
			if k == "" || regexp.QuoteMeta(k) != k {
				anyKind = true
				continue
			}
			if !seen[k] {
				seen[k] = true
				kinds = append(kinds, k)
			}
		}
	}
	return kinds, anyKind
}

// MayTarget reports whether a target may select an object of kind in
// namespace named name (any name when name is ""), from these alone: a
// superset of the objects Targets reports, for a registry that looks for
// the files that may target an admission request before decoding its
// object. Group, version, labels, annotations and rejects are left to
// Targets.
func (r *Replacements) MayTarget(kind, namespace, name string) bool {
	for _, rp := range r.items {
		for _, t := range rp.targets {
			s := t.sel.sel
			if matches(s.kind, kind) && matches(s.namespace, namespace) && (name == "" || matches(s.name, name)) {
				return true
			}
		}
	}
	return false
}
