package registry

import (
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// Compiler builds registries from the registry ConfigMaps and the stored
// last good versions (LastGood). It keeps what it compiled, by file and
// content, so that a build compiles only the files whose content changed:
// a one-key edit compiles one file. One Build runs at a time.
//
// Which version of a file applies, on every replica alike: its current
// content when it compiles within the Limits; else its stored last good
// version, when there is one, the registry held it (StoredFile.Trust) and
// it fits; else none. What a replica saw before does not count, so a
// replica that starts after a broken edit applies what the others apply;
// it only vouches for a stored version.
type Compiler struct {
	Limits Limits
	// RegistryNamespace, when set, makes the ConfigMaps of every other
	// namespace tenants' (tenant.go); when empty, every ConfigMap is the
	// registry namespace's.
	RegistryNamespace string
	// Tenancy is what the tenants are granted: the kinds they patch, and
	// their limits (tenant.go).
	Tenancy Tenancy

	mu         sync.Mutex
	generation int
	files      map[FileRef]*fileState
	values     map[valuesKey]*parsedValues
	cmValues   map[string]cmValues
}

// Build is the result of one Compiler.Build.
type Build struct {
	Registry *Registry
	// Problems lists the files whose state changed: newly refused (a
	// compile error, a limit), refused again after a new edit, recovered,
	// or now applying a different version.
	Problems []Problem
	// LastGood is what the store should hold after this build: the
	// current version of every file that applies it, the stored version of
	// every file whose current content is refused. Nil when the store
	// holds exactly that already.
	LastGood *LastGood
	// Compiled counts the versions this build compiled; the others were
	// reused.
	Compiled int
}

// Problem is a file whose state changed in one Build.
type Problem struct {
	Ref       FileRef
	ConfigMap *corev1.ConfigMap
	// Err is why the current content is refused; nil when the file
	// applies its current content again.
	Err error
	// LastGood says that the stored last good version applies instead.
	LastGood bool
	// LastGoodErr is why the stored last good version does not apply
	// either, or nil.
	LastGoodErr error
}

// fileState is what the compiler keeps of one file between builds.
type fileState struct {
	generation  int // the last build that saw it
	known       bool
	src, values string  // the content seen last
	current     version // its compiled version, when it was compiled
	lastGood    version // the stored version, compiled when it applies
	status      string  // the refusal reported last, "" when none
	fellBack    bool    // whether the last good version applied last time
	compiled    history // the versions that compiled as its content
}

// version is one compiled version of a file.
type version struct {
	compiled bool
	src      string
	digest   string // of src
	values   valuesKey
	file     apply.File    // the version as it applies, nil when it does not compile
	patch    *kpatch.Patch // of a patch file
	params   *fileValues   // how its values depend on the object; nil when they do not
	err      error
}

// valuesKey names one content of a ConfigMap's values.yaml by its digest.
type valuesKey struct{ configMap, digest string }

// cmValues is the values context of a ConfigMap seen last (its
// parameters.yaml and values.yaml: valuesContext), and its digest.
type cmValues struct{ content, digest string }

// build is the state of one Build in progress.
type build struct {
	*Build
	c       *Compiler
	stored  *LastGood
	files   []RegistryFile
	pending []pendingFile // of each of files: its state to report
	want    []storedEntry // what the store should hold
	changed bool          // want differs from stored
	// allowances are what the registry namespace ("") and each tenant
	// may still take within its limits
	allowances map[string]*allowance
	counted    map[valuesKey]*bool // whether a values.yaml is in the estimate yet
	values     map[valuesKey]*parsedValues
}

// allowance is what the files of the registry namespace, or of one
// tenant, have taken of their limits in a build.
type allowance struct {
	limits Limits
	tenant string
	files  int
	budget int64 // of MaxCompiledSize, left
}

type storedEntry struct {
	ref  FileRef
	file StoredFile
}

// Build compiles the patch files of cms into a registry, falling back to
// the versions of stored for files whose current content is refused.
func (c *Compiler) Build(cms []corev1.ConfigMap, stored *LastGood) *Build {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files, c.cmValues = map[FileRef]*fileState{}, map[string]cmValues{}
	}
	c.generation++
	b := &build{
		Build: &Build{}, c: c, stored: stored, allowances: map[string]*allowance{},
		files: make([]RegistryFile, 0, len(c.files)), want: make([]storedEntry, 0, len(c.files)),
		counted: map[valuesKey]*bool{}, values: map[valuesKey]*parsedValues{},
	}
	cms = c.inLimitOrder(cms)
	seenValues := make(map[string]cmValues, len(cms))
	layers := make(map[string]int, len(cms))
	for i := range cms {
		cm := &cms[i]
		id := c.ConfigMapID(cm)
		layer, layerErr := configMapLayer(cm)
		layers[id] = layer
		cv, ok := c.cmValues[id]
		if values := valuesContext(cm); !ok || cv.content != values {
			cv = cmValues{content: values, digest: Digest(values)}
		}
		seenValues[id] = cv
		counted := b.countedFor(valuesKey{id, cv.digest})
		for _, key := range slices.Sorted(maps.Keys(cm.Data)) {
			switch {
			case !IsPatchKey(key):
			case layerErr != nil:
				b.refuse(cm, key, layerErr)
			default:
				b.file(cm, key, cv, counted)
			}
		}
	}
	for ref, st := range c.files {
		if st.generation != c.generation {
			delete(c.files, ref)
		}
	}
	setOrder(b.files, layers)
	b.inApplyOrder()
	rel, meta := relateFiles(b.files)
	b.report()
	c.values, c.cmValues = b.values, seenValues
	if b.changed || len(b.want) != stored.Len() {
		want := make(map[FileRef]StoredFile, len(b.want))
		for _, e := range b.want {
			want[e.ref] = e.file
		}
		b.LastGood = NewLastGood(want)
	}
	b.Registry = newRegistry(inOrder(b.files, rel.Order))
	b.Registry.meta, b.Registry.relations = meta, rel
	for _, a := range b.allowances {
		b.Registry.estimated += a.limits.MaxCompiledSize - a.budget
	}
	b.Registry.tenantKinds = c.Tenancy.kinds()
	return b.Build
}

// Compiled reports whether this compiler compiled f as the content of
// the file ref of its ConfigMap (of f's uid): a stored version that needs
// no other voucher.
func (c *Compiler) Compiled(ref FileRef, f StoredFile) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.files[ref]
	return st != nil && st.compiled.has(f)
}

// allowance returns what the files of tenant ("" for the registry
// namespace) may still take.
func (b *build) allowance(tenant string) *allowance {
	a := b.allowances[tenant]
	if a == nil {
		a = &allowance{limits: b.c.Limits, tenant: tenant}
		if tenant != "" {
			a.limits.MaxFiles, a.limits.MaxCompiledSize = b.c.Tenancy.Limits.MaxFiles, b.c.Tenancy.Limits.MaxCompiledSize
		}
		a.budget = a.limits.MaxCompiledSize
		b.allowances[tenant] = a
	}
	return a
}

// state counts the file key of cm and returns its reference and what the
// compiler keeps of it, seen by this build.
func (b *build) state(cm *corev1.ConfigMap, key string) (FileRef, *fileState) {
	ref := FileRef{Namespace: b.c.tenantOf(cm), ConfigMap: cm.Name, Key: key}
	b.allowance(ref.Namespace).files++
	st := b.c.files[ref]
	if st == nil {
		st = &fileState{}
		b.c.files[ref] = st
	}
	st.generation = b.c.generation
	return ref, st
}

// file decides which version of one file applies; counted says whether
// its ConfigMap's current values.yaml is in the estimate yet.
func (b *build) file(cm *corev1.ConfigMap, key string, cv cmValues, counted *bool) {
	ref, st := b.state(cm, key)
	src := cm.Data[key]
	edited := !st.known || st.src != src || st.values != cv.content
	st.known, st.src, st.values = true, src, cv.content
	if a := b.allowance(ref.Namespace); a.limits.MaxFiles > 0 && a.files > a.limits.MaxFiles {
		st.current, st.lastGood = version{}, version{}
		b.add(cm, st, RegistryFile{Ref: ref, Err: tooManyFiles(ref, a.limits.MaxFiles)}, false)
		return
	}
	f := RegistryFile{Ref: ref}
	old, hasOld := b.stored.Get(ref)
	// a tenant's file has no last good version (tenant.go)
	stores := ref.Namespace == ""
	if f.Err = b.apply(ref, &st.current, src, valuesKey{b.c.ConfigMapID(cm), cv.digest}, cv.content, counted); f.Err == nil {
		f.setVersion(&st.current)
		if stores {
			st.compiled.add(Compiled{string(cm.UID), st.current.digest, cv.digest})
			b.keep(ref, b.current(old, hasOld, cm, &st.current, cv), old, hasOld)
		}
	} else if hasOld && stores {
		if f.LastGoodErr = old.Trust(cm, st.compiled.has(old)); f.LastGoodErr != nil {
			b.changed = true // the store drops it
		} else {
			b.keep(ref, old, old, true)
			vk := valuesKey{cm.Name, old.ValuesDigest}
			if f.LastGoodErr = b.apply(ref, &st.lastGood, old.Source, vk, old.Values, b.countedFor(vk)); f.LastGoodErr == nil {
				f.setVersion(&st.lastGood)
				f.LastGood = true
			}
		}
	}
	if !f.LastGood {
		st.lastGood = version{}
	}
	b.add(cm, st, f, edited)
}

// setVersion makes v the version of the file that applies.
func (f *RegistryFile) setVersion(v *version) {
	f.File, f.Patch, f.params = v.file, v.patch, v.params
	f.Version = v.digest[:versionLength]
}

// countedFor returns whether the values.yaml of vk is in the estimate yet.
func (b *build) countedFor(vk valuesKey) *bool {
	c := b.counted[vk]
	if c == nil {
		c = new(bool)
		b.counted[vk] = c
	}
	return c
}

// apply returns the compiled version of src and the values of vk (whose
// content is values), compiling it unless v holds it already, when it fits
// the limits; the estimate of a version that applies is taken from the
// budget, its values.yaml's once (counted).
func (b *build) apply(ref FileRef, v *version, src string, vk valuesKey, values string, counted *bool) error {
	if max := b.c.Limits.MaxFileSize; max > 0 && int64(len(src)) > max {
		*v = version{}
		return fileTooLarge(ref, int64(len(src)), max)
	}
	size := estimate(src, "")
	if !*counted {
		size += estimate("", values)
	}
	a := b.allowance(ref.Namespace)
	if a.limits.MaxCompiledSize > 0 && size > a.budget {
		*v = version{}
		return registryTooLarge(ref, size, a.limits.MaxCompiledSize)
	}
	if !v.compiled || v.values != vk || v.src != src {
		b.Compiled++
		*v = version{compiled: true, src: src, digest: Digest(src), values: vk}
		var c compiledFile
		if c, v.err = compileFile(&fileSource{ref: ref, src: src, values: b.parsedValues(vk, values), allow: b.c.Tenancy.kinds()}); v.err == nil {
			v.file, v.patch, v.params = c.file, c.patch, c.params
		}
	}
	if v.err != nil {
		return v.err
	}
	a.budget -= size
	*counted = true
	return nil
}

// parsedValues are the values of vk (whose content is values), parsed
// once per build and content.
func (b *build) parsedValues(vk valuesKey, values string) *parsedValues {
	pv := b.values[vk]
	if pv == nil {
		if pv = b.c.values[vk]; pv == nil {
			pv = parseValues(vk.configMap, values)
		}
		b.values[vk] = pv
	}
	return pv
}

// current is the stored form of the current version v of a file: the
// stored one (old) when it is the same version, so that an edit of
// another key of the ConfigMap does not rewrite it.
func (b *build) current(old StoredFile, hasOld bool, cm *corev1.ConfigMap, v *version, cv cmValues) StoredFile {
	if hasOld && old.SourceDigest == v.digest && old.ValuesDigest == cv.digest && old.UID == string(cm.UID) {
		return old
	}
	return StoredFile{Source: v.src, Values: cv.content, SourceDigest: v.digest, ValuesDigest: cv.digest, UID: string(cm.UID), ResourceVersion: cm.ResourceVersion}
}

// keep records the version the store should hold for ref, which holds
// old if hasOld.
func (b *build) keep(ref FileRef, f, old StoredFile, hasOld bool) {
	b.want = append(b.want, storedEntry{ref, f})
	if !hasOld || !old.SameVersion(f) {
		b.changed = true
	}
}

// pendingFile is what report needs of a file added to a build.
type pendingFile struct {
	cm     *corev1.ConfigMap
	st     *fileState
	edited bool
}

// add appends the file to the registry; report records its problem.
func (b *build) add(cm *corev1.ConfigMap, st *fileState, f RegistryFile, edited bool) {
	b.files = append(b.files, f)
	b.pending = append(b.pending, pendingFile{cm, st, edited})
}

// report records a problem for each file whose state changed, once the
// metadata of the files are related (relateFiles).
func (b *build) report() {
	for i, p := range b.pending {
		f := &b.files[i]
		status := ""
		if f.Err != nil {
			status = f.Err.Error()
		}
		if status != p.st.status || f.Err != nil && (p.edited || f.LastGood != p.st.fellBack) {
			b.Problems = append(b.Problems, Problem{Ref: f.Ref, ConfigMap: p.cm, Err: f.Err, LastGood: f.LastGood, LastGoodErr: f.LastGoodErr})
		}
		p.st.status, p.st.fellBack = status, f.LastGood
	}
}

// inApplyOrder sorts the files by their order keys (order.go), and what
// is pending of them with them.
func (b *build) inApplyOrder() {
	idx := make([]int, len(b.files))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return b.files[i].Order.Compare(b.files[j].Order) })
	files, pending := make([]RegistryFile, len(idx)), make([]pendingFile, len(idx))
	for k, i := range idx {
		files[k], pending[k] = b.files[i], b.pending[i]
	}
	b.files, b.pending = files, pending
}

// inOrder returns files in order, a list of their indexes.
func inOrder(files []RegistryFile, order []int) []RegistryFile {
	out := make([]RegistryFile, len(order))
	for k, i := range order {
		out[k] = files[i]
	}
	return out
}
