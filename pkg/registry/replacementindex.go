package registry

import (
	"slices"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

// replacementIndex holds the replacements files of a registry, by their
// stand-ins (compileReplacements), and finds those that may target an
// admission request from its kind, namespace and name, before its object
// is decoded: by the kinds their targets' selects name literally, the
// others (a select without a kind, or whose kind is a regular
// expression) checked on every request. It is immutable once built.
type replacementIndex struct {
	files map[*kpatch.Patch]*replacement.Replacements
	// tenant are the files of tenant registries: they read no source of
	// the registry namespace.
	tenant  map[*kpatch.Patch]bool
	byKind  map[string][]*kpatch.Patch // exact kinds, as kustomize matches them
	anyKind []*kpatch.Patch
}

// addReplacements indexes the replacements file whose stand-in is p, a
// file of a tenant registry if tenant.
func (r *Registry) addReplacements(p *kpatch.Patch, repl *replacement.Replacements, tenant bool) {
	x := r.replacements
	if x == nil {
		x = &replacementIndex{files: map[*kpatch.Patch]*replacement.Replacements{}, tenant: map[*kpatch.Patch]bool{}, byKind: map[string][]*kpatch.Patch{}}
		r.replacements = x
	}
	x.files[p] = repl
	if tenant {
		x.tenant[p] = true
	}
	kinds, anyKind := repl.Kinds()
	for _, k := range kinds {
		x.byKind[k] = append(x.byKind[k], p)
	}
	if anyKind {
		x.anyKind = append(x.anyKind, p)
	}
}

// withReplacements merges into own, in registry order, the replacements
// files that may target an object of kind in namespace named name ("":
// any name).
func (r *Registry) withReplacements(own []*kpatch.Patch, kind, namespace, name string) []*kpatch.Patch {
	x := r.replacements
	if x == nil {
		return own
	}
	var found []*kpatch.Patch
	for _, list := range [][]*kpatch.Patch{x.byKind[kind], x.anyKind} {
		for _, p := range list {
			if x.files[p].MayTarget(kind, namespace, name) && !slices.Contains(found, p) {
				found = append(found, p)
			}
		}
	}
	if len(found) == 0 {
		return own
	}
	found = append(found, own...)
	slices.SortFunc(found, func(a, b *kpatch.Patch) int { return r.order[a] - r.order[b] })
	return found
}

// isReplacementsFile reports whether a registry file is a replacements
// file: a YAML file (.yaml, .yml) that is a map whose key is replacements
// (kustomize's replacements: list, docs/replacements.md).
func isReplacementsFile(key, src string) bool {
	return kpatch.IsYAMLFile(key) && replacement.IsReplacementsFile([]byte(src))
}

// compileReplacements parses a replacements file. Its stand-in is the
// *kpatch.Patch that holds its place in the registry: an empty patch of
// the file's name, in registry order with the others, that targets
// nothing by itself; the registry maps it to the replacements.
// A tenant's file is held to its namespace (tenant.go).
func compileReplacements(ref FileRef, src string) (*kpatch.Patch, *replacement.Replacements, error) {
	r, err := replacement.Parse(ref.String(), []byte(src))
	if err != nil {
		return nil, nil, err
	}
	if ref.Namespace != "" {
		if err := tenantSelects(ref, r.HoldToNamespace(ref.Namespace)); err != nil {
			return nil, nil, err
		}
	}
	standIn, err := kpatch.Compile(&kpatch.File{Name: ref.String()})
	if err != nil {
		return nil, nil, err
	}
	return standIn, r, nil
}

// replacementsOf returns the replacements of the version of the file
// whose patch is p, nil for a patch file.
func (st *fileState) replacementsOf(p *kpatch.Patch) *replacement.Replacements {
	switch {
	case p == nil:
		return nil
	case p == st.current.patch:
		return st.current.repl
	case p == st.lastGood.patch:
		return st.lastGood.repl
	}
	return nil
}

// Replacements returns the replacements whose stand-in is p, nil for a
// patch file.
func (r *Registry) Replacements(p *kpatch.Patch) *replacement.Replacements {
	if r.replacements == nil {
		return nil
	}
	return r.replacements.files[p]
}

// HasReplacements reports whether the registry has replacements files.
func (r *Registry) HasReplacements() bool { return r.replacements != nil }

// IsTenantFile reports whether the replacements file whose stand-in is p
// is a tenant's: it reads the sources of its own namespace only.
func (r *Registry) IsTenantFile(p *kpatch.Patch) bool {
	return r.replacements != nil && r.replacements.tenant[p]
}
