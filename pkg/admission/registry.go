package admission

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// ValuesKey is the ConfigMap key that holds the values: and features: of
// the ConfigMap's patch files.
const ValuesKey = "values.yaml"

// PatchSuffix marks the ConfigMap keys that are patch files.
const PatchSuffix = ".kpatch"

// IsPatchKey reports whether a ConfigMap key is a patch file: a .kpatch
// file, or a YAML patch file (.yaml, .yml) other than values.yaml.
func IsPatchKey(key string) bool {
	return strings.HasSuffix(key, PatchSuffix) || key != ValuesKey && kpatch.IsYAMLFile(key)
}

// FileRef names one patch file of the registry: a key of a ConfigMap.
type FileRef struct {
	ConfigMap string
	Key       string
}

// String formats the reference as configmap/key.
func (r FileRef) String() string { return r.ConfigMap + "/" + r.Key }

// RegistryFile is one file of a registry.
type RegistryFile struct {
	Ref FileRef
	// Patch is the version that applies: the current content, or the last
	// good one when the current content does not compile. Nil when no
	// version ever compiled.
	Patch *kpatch.Patch
	// Err is why the current content does not compile, or nil.
	Err error
}

// Registry is one compiled state of the registry: every file in order
// (ConfigMap name, then key), indexed by the kinds its headers target. It
// is immutable and safe for concurrent use.
type Registry struct {
	files     []RegistryFile
	byKind    map[string][]*kpatch.Patch
	conflicts []*kpatch.Conflict
}

// NewRegistry indexes files, which are in order, by kind.
func NewRegistry(files []RegistryFile) *Registry {
	r := &Registry{files: files, byKind: map[string][]*kpatch.Patch{}}
	var active []*kpatch.Patch
	for _, f := range files {
		if f.Patch == nil {
			continue
		}
		active = append(active, f.Patch)
		for _, kind := range f.Patch.Kinds() {
			r.byKind[kind] = append(r.byKind[kind], f.Patch)
		}
	}
	r.conflicts = kpatch.Conflicts(active)
	return r
}

// Conflicts returns the fields that two files set to different values;
// the later file in registry order wins.
func (r *Registry) Conflicts() []*kpatch.Conflict { return r.conflicts }

// Patches returns, in registry order, the patches that target kind
// (case-insensitively). The caller must not modify the slice.
func (r *Registry) Patches(kind string) []*kpatch.Patch {
	if p, ok := r.byKind[kind]; ok {
		return p
	}
	return r.byKind[strings.ToLower(kind)]
}

// Files returns the registry's files in order.
func (r *Registry) Files() []RegistryFile { return slices.Clone(r.files) }

// Active returns how many files apply.
func (r *Registry) Active() int {
	n := 0
	for _, f := range r.files {
		if f.Patch != nil {
			n++
		}
	}
	return n
}

// Problem is a file whose content stopped compiling, or a file that
// compiles again, found by one Build.
type Problem struct {
	Ref       FileRef
	ConfigMap *corev1.ConfigMap
	// Err is the compile error; nil when the file recovered.
	Err error
	// KeptLastGood says that an earlier version of the file still applies.
	KeptLastGood bool
}

// Compiler builds registries from ConfigMaps. It compiles only what
// changed since the last Build and keeps the last good version of a file
// whose new content does not compile. One Build runs at a time.
type Compiler struct {
	mu    sync.Mutex
	files map[FileRef]*compiledFile
}

type compiledFile struct {
	src, values string        // what the file was last compiled from
	err         error         // the error of src, or nil
	good        *kpatch.Patch // the last version that compiled, bound to its values
}

// Build compiles the patch files of cms into a registry. Problems lists
// the files whose state changed: newly failing or recovered.
func (c *Compiler) Build(cms []corev1.ConfigMap) (*Registry, []Problem) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files = map[FileRef]*compiledFile{}
	}
	cms = slices.Clone(cms)
	slices.SortFunc(cms, func(a, b corev1.ConfigMap) int { return strings.Compare(a.Name, b.Name) })
	var (
		files    []RegistryFile
		problems []Problem
		seen     = map[FileRef]bool{}
	)
	for i := range cms {
		cm := &cms[i]
		values := cm.Data[ValuesKey]
		for _, key := range slices.Sorted(maps.Keys(cm.Data)) {
			if !IsPatchKey(key) {
				continue
			}
			ref := FileRef{ConfigMap: cm.Name, Key: key}
			seen[ref] = true
			cf := c.files[ref]
			if cf == nil {
				cf = &compiledFile{}
				c.files[ref] = cf
			}
			src := cm.Data[key]
			if cf.src != src || cf.values != values || cf.good == nil && cf.err == nil {
				wasFailing := cf.err != nil
				patch, err := compileFile(ref, src, values)
				cf.src, cf.values, cf.err = src, values, err
				if err == nil {
					cf.good = patch
					if wasFailing {
						problems = append(problems, Problem{Ref: ref, ConfigMap: cm})
					}
				} else {
					problems = append(problems, Problem{Ref: ref, ConfigMap: cm, Err: err, KeptLastGood: cf.good != nil})
				}
			}
			files = append(files, RegistryFile{Ref: ref, Patch: cf.good, Err: cf.err})
		}
	}
	for ref := range c.files {
		if !seen[ref] {
			delete(c.files, ref)
		}
	}
	return NewRegistry(files), problems
}

// compileFile parses and compiles one file and binds it to its
// ConfigMap's values.
func compileFile(ref FileRef, src, values string) (*kpatch.Patch, error) {
	vars := &kpatch.Variables{}
	if values != "" {
		v, err := kpatch.LoadVariables([]byte(values))
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", ref.ConfigMap, ValuesKey, err)
		}
		vars = v
	}
	p, err := kpatch.ParseAndCompile(ref.String(), []byte(src))
	if err != nil {
		return nil, err
	}
	return p.Bind(vars)
}

// errorSummary shortens a compile error for an Event: its first lines.
func errorSummary(err error) string {
	var list kpatch.ErrorList
	if errors.As(err, &list) && len(list) > 3 {
		lines := make([]string, 0, 4)
		for _, e := range list[:3] {
			lines = append(lines, e.Error())
		}
		lines = append(lines, fmt.Sprintf("and %d more", len(list)-3))
		return strings.Join(lines, "\n")
	}
	return err.Error()
}
