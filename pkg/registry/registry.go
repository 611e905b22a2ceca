package registry

import (
	"cmp"
	"slices"
	"strings"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
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

// FileRef names one patch file of the registry: a key of a ConfigMap, or
// a file given by path (CompileFiles).
type FileRef struct {
	// Namespace is the ConfigMap's namespace for a tenant's file (see
	// tenant.go); empty for the files of the registry namespace.
	Namespace string
	// ConfigMap and Key are the file's ConfigMap and key; for a file
	// given by path, its directory's name and its base name, as
	// metadata names it (both empty for standard input).
	ConfigMap string
	Key       string
	// Path is the path of a file given by path, its name in messages;
	// empty for a ConfigMap's key.
	Path string
}

// String formats the reference as configmap/key, or namespace/configmap/key
// for a tenant's file, or the path of a file given by path: the file's
// name in messages and metrics.
func (r FileRef) String() string {
	if r.Path != "" {
		return r.Path
	}
	if r.Namespace != "" {
		return r.Namespace + "/" + r.ConfigMap + "/" + r.Key
	}
	return r.ConfigMap + "/" + r.Key
}

// compare orders references as the limits take files: the registry
// namespace's first, then the tenants' by namespace; by ConfigMap name,
// then key. Files given by path are in the order given (0).
func (r FileRef) compare(o FileRef) int {
	if r.Path != "" || o.Path != "" {
		return 0
	}
	if (r.Namespace == "") != (o.Namespace == "") {
		if r.Namespace == "" {
			return -1
		}
		return 1
	}
	return cmp.Or(strings.Compare(r.Namespace, o.Namespace), strings.Compare(r.ConfigMap, o.ConfigMap), strings.Compare(r.Key, o.Key))
}

// name is the file's name as its kind is recognised by: its key, or its
// path.
func (r FileRef) name() string {
	if r.Path != "" {
		return r.Path
	}
	return r.Key
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
	// File is the version that applies, of the file's kind: the current
	// content, or the stored last good one when the current content is
	// refused (LastGood). Nil when no version applies.
	File apply.File
	// Patch is File's compiled patch for a patch file (.kpatch or YAML
	// patch file), which the analyses of patch files read (conflicts,
	// lint); nil for another kind, or when no version applies. How the
	// file applies is File's alone.
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
	// Disabled says that Patch's enabled: metadata is false with its
	// ConfigMap's values: the file does not apply.
	Disabled bool
	// Version names the content of the version that applies (Version).
	Version string

	params *fileValues // how Patch's values depend on the object; nil when they do not
	// valuesUnknown says that the file's values are not known
	// (CompileFiles without values)
	valuesUnknown bool
}

// Registry is one compiled state of the registry: every file, in
// ConfigMap name and key order, and the files that apply in the order they
// apply (RegistryFile.Order: layer, specificity, ConfigMap name, key),
// indexed by the kinds its headers target and,
// within a kind, by the names and namespaces they target. It is immutable
// and safe for concurrent use.
type Registry struct {
	files  []RegistryFile
	active []apply.File
	// patches are the active patch files, and keys their order keys:
	// what the conflict analysis reads.
	patches []*kpatch.Patch
	keys    []kpatch.OrderKey
	// byKind indexes the files with kpatch targets (File.Targets).
	byKind map[string]*kindIndex
	// order is each active file's position in registry order; used to
	// merge the files of several indexes.
	order     map[apply.File]int
	estimated int64
	// values are the active patch files whose values depend on the
	// object (per-namespace values, built-ins), with the bindings made so
	// far.
	values map[apply.File]*fileValues
	bound  *boundCache
	// others indexes the files whose targets are no kpatch targets (a
	// replacements file's selects); nil when there are none.
	others *otherIndex
	// meta are the active patch files whose metadata ask something of
	// each object (relateFiles).
	meta map[apply.File]*fileMeta
	// relations are the files' requires: and conflicts:, nil when the
	// registry was not compiled (NewRegistry).
	relations *kpatch.Relations
	// tenantKinds is the allowlist the tenants' files are held to; nil
	// when the registry was not compiled (NewRegistry).
	tenantKinds *TenantKinds
	// patchOf are the compiled patches of the active patch files.
	patchOf map[apply.File]*kpatch.Patch
	// versions are the Version of each file that applies, by name.
	versions map[string]string
}

// NewRegistry sorts the files by their Order and indexes those that
// apply by kind, name and namespace.
func NewRegistry(files []RegistryFile) *Registry {
	return newRegistry(inApplyOrder(files))
}

// newRegistry indexes the files that apply, which are in the order they
// apply (inApplyOrder, then requires: metadata, relateFiles).
func newRegistry(files []RegistryFile) *Registry {
	r := &Registry{files: files, byKind: map[string]*kindIndex{}, order: map[apply.File]int{}, versions: map[string]string{}, patchOf: map[apply.File]*kpatch.Patch{}}
	for _, f := range files {
		if f.File == nil || f.Disabled {
			continue
		}
		r.active = append(r.active, f.File)
		r.order[f.File] = len(r.active)
		r.versions[f.File.Name()] = f.Version
		if f.Patch != nil {
			r.patches = append(r.patches, f.Patch)
			r.keys = append(r.keys, f.Order)
			r.patchOf[f.File] = f.Patch
		}
		r.addValues(f)
		if f.File.Targets() == nil {
			r.addOther(f.File)
			continue
		}
		kinds, _ := f.File.Kinds()
		for _, kind := range kinds {
			x := r.byKind[kind]
			if x == nil {
				x = &kindIndex{}
				r.byKind[kind] = x
			}
			x.add(f.File, kind)
		}
	}
	return r
}

// Patches returns, in registry order, the patch files that target kind
// (case-insensitively).
func (r *Registry) Patches(kind string) []*kpatch.Patch {
	var own []apply.File
	if x := r.kind(kind); x != nil {
		own = x.files
	}
	if wild := r.byKind[kpatch.AnyKind]; wild != nil {
		own = r.withAnyKind(own, wild.files, kind)
	}
	out := make([]*kpatch.Patch, 0, len(own))
	for _, f := range own {
		if p := r.patchOf[f]; p != nil {
			out = append(out, p)
		}
	}
	return out
}

// withAnyKind merges into own, in registry order, the patches of kind
// globs restricted to a custom resource's group that match kind.
func (r *Registry) withAnyKind(own, anyKind []apply.File, kind string) []apply.File {
	var out []apply.File
	for _, f := range anyKind {
		if matchesKind(f, kind) && !slices.Contains(own, f) {
			out = append(out, f)
		}
	}
	return r.merged(own, out)
}

// merged returns own with found, files of other indexes, merged in, in
// registry order.
func (r *Registry) merged(own, found []apply.File) []apply.File {
	if len(found) == 0 {
		return own
	}
	found = append(found, own...)
	slices.SortFunc(found, func(a, b apply.File) int { return r.order[a] - r.order[b] })
	return found
}

// matchesKind reports whether a target of f may match objects of kind.
func matchesKind(f apply.File, kind string) bool {
	for _, t := range f.Targets() {
		if t.MatchesKind(kind) {
			return true
		}
	}
	return false
}

// Candidates returns, in registry order, the files with a target that
// may address an object of kind in namespace named name, from these alone:
// a superset of the files that target the object, found without it.
// An empty name is one the request does not say (a CREATE with
// metadata.generateName): any name may then match.
func (r *Registry) Candidates(kind, namespace, name string) []apply.File {
	var own []apply.File
	if x := r.kind(kind); x != nil {
		own = x.candidates(namespace, name)
	}
	if wild := r.byKind[kpatch.AnyKind]; wild != nil {
		own = r.withAnyKind(own, wild.candidates(namespace, name), kind)
	}
	return r.withOthers(own, kind, namespace, name)
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
		if f.File != nil && !f.Disabled {
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
		if f.File != nil {
			out = append(out, f)
		}
	}
	return out
}

// Active returns how many files apply.
func (r *Registry) Active() int { return len(r.active) }

// EstimatedSize is the estimated compiled size of the versions that apply
// (Limits.MaxCompiledSize), in bytes: the registry namespace's and the
// tenants'.
func (r *Registry) EstimatedSize() int64 { return r.estimated }

// TenantKinds is the allowlist the tenants' files are held to: the
// Compiler's Tenancy, DefaultTenantKinds when it sets none, nil for a
// registry that was not compiled.
func (r *Registry) TenantKinds() *TenantKinds { return r.tenantKinds }
