package registry

import (
	"cmp"
	"slices"
	"strings"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

// ValuesKey is the ConfigMap key that holds the values: and features: of
// the ConfigMap's patch files.
const ValuesKey = "values.yaml"

// PatchSuffix marks the ConfigMap keys that are patch files.
const PatchSuffix = ".kpatch"

// IsPatchKey reports whether a ConfigMap key is a patch file: a .kpatch
// file, or a YAML patch file (.yaml, .yml) other than values.yaml and
// parameters.yaml.
func IsPatchKey(key string) bool {
	return strings.HasSuffix(key, PatchSuffix) || key != ValuesKey && key != ParametersKey && kpatch.IsYAMLFile(key)
}

// FileRef names one patch file of the registry: a key of a ConfigMap.
type FileRef struct {
	// Namespace is the ConfigMap's namespace for a tenant's file (see
	// tenant.go); empty for the files of the registry namespace.
	Namespace string
	ConfigMap string
	Key       string
}

// String formats the reference as configmap/key, or namespace/configmap/key
// for a tenant's file: the file's name in messages and metrics.
func (r FileRef) String() string {
	if r.Namespace != "" {
		return r.Namespace + "/" + r.ConfigMap + "/" + r.Key
	}
	return r.ConfigMap + "/" + r.Key
}

// compare orders references as the limits take files: the registry
// namespace's first, then the tenants' by namespace; by ConfigMap name,
// then key.
func (r FileRef) compare(o FileRef) int {
	if (r.Namespace == "") != (o.Namespace == "") {
		if r.Namespace == "" {
			return -1
		}
		return 1
	}
	return cmp.Or(strings.Compare(r.Namespace, o.Namespace), strings.Compare(r.ConfigMap, o.ConfigMap), strings.Compare(r.Key, o.Key))
}

// ConfigMapID names the file's ConfigMap: its name, or namespace/name for
// a tenant's.
func (r FileRef) ConfigMapID() string {
	if r.Namespace != "" {
		return r.Namespace + "/" + r.ConfigMap
	}
	return r.ConfigMap
}

// RegistryFile is one file of a registry.
type RegistryFile struct {
	Ref FileRef
	// Order is where the file applies (order.go): by layer, specificity,
	// ConfigMap name and key.
	Order kpatch.OrderKey
	// Patch is the version that applies: the current content, or the
	// stored last good one when the current content is refused (LastGood).
	// Nil when no version applies.
	Patch *kpatch.Patch
	// Err is why the current content is refused (it does not compile, or
	// it is beyond a limit), or nil.
	Err error
	// LastGood says that Patch is the stored last good version.
	LastGood bool
	// LastGoodErr is why the stored last good version does not apply
	// either (beyond a limit, or no longer compiling after an upgrade of
	// the webhook), or nil.
	LastGoodErr error
	// Replacements are the compiled replacements of a replacements file;
	// Patch is then its stand-in, an empty patch of the file's name that
	// holds its place in registry order. Nil for a patch file.
	Replacements *replacement.Replacements
	// Disabled says that Patch's enabled: metadata is false with its
	// ConfigMap's values: the file does not apply.
	Disabled bool

	params *fileValues // how Patch's values depend on the object; nil when they do not
}

// Registry is one compiled state of the registry: every file, in
// ConfigMap name and key order, and the files that apply in the order they
// apply (RegistryFile.Order: layer, specificity, ConfigMap name, key),
// indexed by the kinds its headers target and,
// within a kind, by the names and namespaces they target. It is immutable
// and safe for concurrent use.
type Registry struct {
	files  []RegistryFile
	active []*kpatch.Patch
	keys   []kpatch.OrderKey // of the active patches
	byKind map[string]*kindIndex
	// order is each active patch's position in registry order; used only
	// to merge in the patches of kind globs that may match any kind of a
	// custom resource's group (kpatch.AnyKind).
	order     map[*kpatch.Patch]int
	estimated int64
	// values are the active patches whose values depend on the object
	// (per-namespace values, built-ins), with the bindings made so far.
	values map[*kpatch.Patch]*fileValues
	bound  *boundCache
	// replacements are the replacements files, nil when there are none.
	replacements *replacementIndex
	// meta are the active patches whose metadata ask something of each
	// object (relateFiles).
	meta map[*kpatch.Patch]*fileMeta
	// relations are the files' requires: and conflicts:, nil when the
	// registry was not compiled (NewRegistry).
	relations *kpatch.Relations
}

// NewRegistry sorts the files by their Order and indexes those that
// apply by kind, name and namespace.
func NewRegistry(files []RegistryFile) *Registry {
	return newRegistry(inApplyOrder(files))
}

// newRegistry indexes the files that apply, which are in the order they
// apply (inApplyOrder, then requires: metadata, relateFiles).
func newRegistry(files []RegistryFile) *Registry {
	r := &Registry{files: files, byKind: map[string]*kindIndex{}, order: map[*kpatch.Patch]int{}}
	for _, f := range files {
		if f.Patch == nil || f.Disabled {
			continue
		}
		r.active = append(r.active, f.Patch)
		r.keys = append(r.keys, f.Order)
		r.order[f.Patch] = len(r.active)
		r.addValues(f)
		if f.Replacements != nil {
			r.addReplacements(f.Patch, f.Replacements, f.Ref.Namespace != "")
		}
		for _, kind := range f.Patch.Kinds() {
			x := r.byKind[kind]
			if x == nil {
				x = &kindIndex{}
				r.byKind[kind] = x
			}
			x.add(f.Patch, kind)
		}
	}
	return r
}

// Patches returns, in registry order, the patches that target kind
// (case-insensitively). The caller must not modify the slice.
func (r *Registry) Patches(kind string) []*kpatch.Patch {
	var own []*kpatch.Patch
	if x := r.kind(kind); x != nil {
		own = x.patches
	}
	if wild := r.byKind[kpatch.AnyKind]; wild != nil {
		return r.withAnyKind(own, wild.patches, kind)
	}
	return own
}

// withAnyKind merges into own, in registry order, the patches of kind
// globs restricted to a custom resource's group that match kind.
func (r *Registry) withAnyKind(own, anyKind []*kpatch.Patch, kind string) []*kpatch.Patch {
	var out []*kpatch.Patch
	for _, p := range anyKind {
		if p.MatchesKind(kind) && !slices.Contains(own, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return own
	}
	out = append(out, own...)
	slices.SortFunc(out, func(a, b *kpatch.Patch) int { return r.order[a] - r.order[b] })
	return out
}

// Candidates returns, in registry order, the patches with a target that
// may address an object of kind in namespace named name, from these alone:
// a superset of the patches that target the object, found without it.
// An empty name is one the request does not say (a CREATE with
// metadata.generateName): any name may then match.
func (r *Registry) Candidates(kind, namespace, name string) []*kpatch.Patch {
	var own []*kpatch.Patch
	if x := r.kind(kind); x != nil {
		own = x.candidates(namespace, name)
	}
	if wild := r.byKind[kpatch.AnyKind]; wild != nil {
		own = r.withAnyKind(own, wild.candidates(namespace, name), kind)
	}
	return r.withReplacements(own, kind, namespace, name)
}

func (r *Registry) kind(kind string) *kindIndex {
	if x, ok := r.byKind[kind]; ok {
		return x
	}
	return r.byKind[strings.ToLower(kind)]
}

// Files returns the registry's files in ConfigMap name and key order (the
// registry namespace's, then the tenants' by namespace).
func (r *Registry) Files() []RegistryFile {
	out := slices.Clone(r.files)
	slices.SortFunc(out, func(a, b RegistryFile) int { return a.Ref.compare(b.Ref) })
	return out
}

// Applied returns the files that apply, in the order they apply.
func (r *Registry) Applied() []RegistryFile {
	out := make([]RegistryFile, 0, len(r.active))
	for _, f := range r.files {
		if f.Patch != nil && !f.Disabled {
			out = append(out, f)
		}
	}
	return out
}

// InOrder returns the files that have a version to apply, in the order
// they apply, those whose enabled: metadata is false (Disabled) at their
// place: what kpatch explain lists.
func (r *Registry) InOrder() []RegistryFile {
	out := make([]RegistryFile, 0, len(r.files))
	for _, f := range r.files {
		if f.Patch != nil {
			out = append(out, f)
		}
	}
	return out
}

// Active returns how many files apply.
func (r *Registry) Active() int { return len(r.active) }

// EstimatedSize is the estimated compiled size of the versions that apply
// (Limits.MaxCompiledSize), in bytes.
func (r *Registry) EstimatedSize() int64 { return r.estimated }
