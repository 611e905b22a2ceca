package informed

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
)

// SourceLabel marks the ConfigMaps that replacements may read at
// admission, with the value "true": those of the admitted object's
// namespace and of the registry namespace.
const SourceLabel = "kpatch.dev/source"

// Sources gives the ConfigMaps labelled kpatch.dev/source=true of a
// namespace, as decoded objects, for the replacements files at
// admission. Implementations read a cache, never the API server per
// request; the objects returned are shared and must not be modified.
type Sources interface {
	// ConfigMaps returns the source ConfigMaps of namespace, by name.
	ConfigMaps(namespace string) []map[string]any
}

// SourcesFunc is a func that is a Sources.
type SourcesFunc func(namespace string) []map[string]any

// ConfigMaps calls f.
func (f SourcesFunc) ConfigMaps(namespace string) []map[string]any { return f(namespace) }

var (
	_ Sources                         = SourcesFunc(nil)
	_ Sources                         = (*SourceConfigMaps)(nil)
	_ toolscache.ResourceEventHandler = (*SourceConfigMaps)(nil)
	_ toolscache.ReflectorStore       = (*SourceConfigMaps)(nil)
)

// SourceConfigMaps keeps the source ConfigMaps that a watch reports (as
// the store of a reflector, or an informer's event handler), decoded
// once per change: a request reads its namespace's list, immutable,
// without a lock or a conversion. A change costs the same whatever the
// number of ConfigMaps of its namespace (one entry of a map); the first
// read after changes lists the namespace again (n log n), so that a
// start-up that reports n ConfigMaps costs n, not n².
//
// It keeps the ConfigMaps of the namespaces it is told to keep (opt-in,
// sourcesoptin.go; the zero value keeps every namespace), within the
// limits of each namespace (Limits, sourceslimits.go), and nothing else:
// a ConfigMap of another namespace is dropped as it arrives.
type SourceConfigMaps struct {
	// Limits bound what one namespace keeps; zero: no bound.
	Limits SourceLimits
	// Refused, if set, is told of each ConfigMap the limits refuse, under
	// the writers' lock: it must not block.
	Refused func(SourceRefusal)

	mu          sync.Mutex    // serializes writers
	byNamespace sync.Map      // namespace -> *sourceNamespace
	optIn       *optIn        // nil: every namespace is kept
	synced      chan struct{} // closed by the first Replace
	syncedMake  sync.Once
	syncedOnce  sync.Once
}

// sourceNamespace is the source ConfigMaps of one namespace: by name, and
// the list by name that requests read, nil after a change.
type sourceNamespace struct {
	mu     sync.Mutex // guards byName: writers, and the first read after a change
	byName map[string]sourceEntry
	list   atomic.Pointer[[]map[string]any]

	// under SourceConfigMaps.mu:
	bytes int64 // the sizes of byName
	// overflow says that the limits refused some ConfigMap of the
	// namespace, the first by name being boundary; those after it were
	// refused too.
	overflow bool
	boundary string
	loading  *sourceLoad // while a list of the namespace is under way
}

// sourceEntry is one ConfigMap kept: decoded, and what identifies its
// version.
type sourceEntry struct {
	obj             map[string]any
	size            int64
	uid             types.UID
	resourceVersion string
}

// sameVersion reports whether e is the version of cm.
func (e sourceEntry) sameVersion(cm *corev1.ConfigMap) bool {
	return e.resourceVersion != "" && e.resourceVersion == cm.ResourceVersion && e.uid == cm.UID
}

// ConfigMaps returns the source ConfigMaps of namespace, by name.
func (s *SourceConfigMaps) ConfigMaps(namespace string) []map[string]any {
	v, ok := s.byNamespace.Load(namespace)
	if !ok {
		return nil
	}
	sn := v.(*sourceNamespace)
	if list := sn.list.Load(); list != nil {
		return *list
	}
	return sn.relist()
}

// relist makes the list of the namespace's ConfigMaps by name again,
// unless another read just did.
func (sn *sourceNamespace) relist() []map[string]any {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if list := sn.list.Load(); list != nil {
		return *list
	}
	var list []map[string]any
	for _, name := range slices.Sorted(maps.Keys(sn.byName)) {
		list = append(list, sn.byName[name].obj)
	}
	sn.list.Store(&list)
	return list
}

// OnAdd records a ConfigMap.
func (s *SourceConfigMaps) OnAdd(obj any, _ bool) { s.set(obj, false) }

// OnUpdate records a ConfigMap's new version; a resync (the same version)
// changes nothing.
func (s *SourceConfigMaps) OnUpdate(_, obj any) { s.set(obj, false) }

// OnDelete forgets a ConfigMap (deleted, or no longer labelled).
func (s *SourceConfigMaps) OnDelete(obj any) {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	s.set(obj, true)
}

// Add records a ConfigMap a reflector lists or watches.
func (s *SourceConfigMaps) Add(obj any) error { s.set(obj, false); return nil }

// Update records a ConfigMap's new version; the same version changes
// nothing.
func (s *SourceConfigMaps) Update(obj any) error { s.set(obj, false); return nil }

// Delete forgets a ConfigMap.
func (s *SourceConfigMaps) Delete(obj any) error { s.OnDelete(obj); return nil }

// Resync does nothing: what is kept is current.
func (s *SourceConfigMaps) Resync() error { return nil }

// Replace makes the ConfigMaps of list, a reflector's full list, the
// ones kept: each namespace kept is made again from its ConfigMaps, the
// limits counted from its first by name.
func (s *SourceConfigMaps) Replace(list []any, _ string) error {
	byNamespace := map[string][]*corev1.ConfigMap{}
	for _, obj := range list {
		if cm, ok := obj.(*corev1.ConfigMap); ok {
			byNamespace[cm.Namespace] = append(byNamespace[cm.Namespace], cm)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byNamespace.Range(func(k, _ any) bool {
		if _, ok := byNamespace[k.(string)]; !ok {
			byNamespace[k.(string)] = nil
		}
		return true
	})
	for ns, cms := range byNamespace {
		if !s.keeps(ns) {
			continue
		}
		sn := s.namespace(ns, true)
		if sn.loading != nil {
			sn.loading.replaced(cms)
		}
		s.rebuild(ns, sn, cms)
	}
	s.markSynced()
	return nil
}

// set records (or, with remove, drops) the ConfigMap in its namespace,
// if the namespace is kept, whose list is made again on the next read.
func (s *SourceConfigMaps) set(obj any, remove bool) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.keeps(cm.Namespace) {
		return
	}
	sn := s.namespace(cm.Namespace, !remove)
	if sn == nil {
		return
	}
	if sn.loading != nil {
		sn.loading.saw(cm, remove)
	}
	if remove {
		s.remove(sn, cm)
	} else {
		s.put(sn, cm)
	}
	s.forgetIfEmpty(cm.Namespace, sn)
}

// namespace is the state of namespace, made when create is true and
// there is none; under mu.
func (s *SourceConfigMaps) namespace(namespace string, create bool) *sourceNamespace {
	if v, ok := s.byNamespace.Load(namespace); ok {
		return v.(*sourceNamespace)
	}
	if !create {
		return nil
	}
	sn := &sourceNamespace{byName: map[string]sourceEntry{}}
	s.byNamespace.Store(namespace, sn)
	return sn
}

// forgetIfEmpty drops the state of a namespace that keeps nothing and
// remembers nothing; under mu.
func (s *SourceConfigMaps) forgetIfEmpty(namespace string, sn *sourceNamespace) {
	if len(sn.byName) == 0 && !sn.overflow && sn.loading == nil {
		s.byNamespace.CompareAndDelete(namespace, sn)
	}
}

// keep sets (or with a nil obj, deletes) the entry of name; under mu.
func (sn *sourceNamespace) keep(name string, e sourceEntry, remove bool) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if old, ok := sn.byName[name]; ok {
		sn.bytes -= old.size
	}
	if remove {
		delete(sn.byName, name)
	} else {
		sn.byName[name] = e
		sn.bytes += e.size
	}
	sn.list.Store(nil)
}

// entry decodes cm.
func entry(cm *corev1.ConfigMap) sourceEntry {
	return sourceEntry{obj: configMapObject(cm), size: sourceSize(cm), uid: cm.UID, resourceVersion: cm.ResourceVersion}
}

// configMapObject is a ConfigMap as a source reads it: a decoded object
// with its apiVersion and kind, without its managed fields.
func configMapObject(cm *corev1.ConfigMap) map[string]any {
	c := *cm
	c.ManagedFields = nil
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
	if err != nil { // a typed ConfigMap always converts
		obj = map[string]any{"metadata": map[string]any{"name": cm.Name, "namespace": cm.Namespace}}
	}
	obj["apiVersion"], obj["kind"] = "v1", "ConfigMap"
	return obj
}
