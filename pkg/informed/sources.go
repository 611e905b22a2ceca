package informed

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
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
)

// SourceConfigMaps keeps the source ConfigMaps an informer reports (its
// event handler), decoded once per change: a request reads its
// namespace's list, immutable, without a lock or a conversion. A change
// costs the same whatever the number of ConfigMaps of its namespace (one
// entry of a map); the first read after changes lists the namespace again
// (n log n), so that a start-up that reports n ConfigMaps costs n, not
// n².
type SourceConfigMaps struct {
	mu          sync.Mutex // serializes writers
	byNamespace sync.Map   // namespace -> *sourceNamespace
}

// sourceNamespace is the source ConfigMaps of one namespace: by name, and
// the list by name that requests read, nil after a change.
type sourceNamespace struct {
	mu     sync.Mutex // guards byName: writers, and the first read after a change
	byName map[string]map[string]any
	list   atomic.Pointer[[]map[string]any]
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
		list = append(list, sn.byName[name])
	}
	sn.list.Store(&list)
	return list
}

// OnAdd records a ConfigMap.
func (s *SourceConfigMaps) OnAdd(obj any, _ bool) { s.set(obj, false) }

// OnUpdate records a ConfigMap's new version; a resync (the same version)
// changes nothing.
func (s *SourceConfigMaps) OnUpdate(old, obj any) {
	o, ok1 := old.(*corev1.ConfigMap)
	n, ok2 := obj.(*corev1.ConfigMap)
	if ok1 && ok2 && o.ResourceVersion != "" && o.ResourceVersion == n.ResourceVersion && o.UID == n.UID {
		return
	}
	s.set(obj, false)
}

// OnDelete forgets a ConfigMap (deleted, or no longer labelled).
func (s *SourceConfigMaps) OnDelete(obj any) {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	s.set(obj, true)
}

// set records (or, with remove, drops) the ConfigMap in its namespace,
// whose list is made again on the next read.
func (s *SourceConfigMaps) set(obj any, remove bool) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	var decoded map[string]any
	if !remove {
		decoded = configMapObject(cm)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.byNamespace.Load(cm.Namespace)
	if !ok {
		if remove {
			return
		}
		v, _ = s.byNamespace.LoadOrStore(cm.Namespace, &sourceNamespace{byName: map[string]map[string]any{}})
	}
	sn := v.(*sourceNamespace)
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if remove {
		delete(sn.byName, cm.Name)
	} else {
		sn.byName[cm.Name] = decoded
	}
	sn.list.Store(nil)
	if len(sn.byName) == 0 {
		s.byNamespace.Delete(cm.Namespace)
	}
}

// configMapObject is a ConfigMap as a source reads it: a decoded object
// with its apiVersion and kind.
func configMapObject(cm *corev1.ConfigMap) map[string]any {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
	if err != nil { // a typed ConfigMap always converts
		obj = map[string]any{"metadata": map[string]any{"name": cm.Name, "namespace": cm.Namespace}}
	}
	obj["apiVersion"], obj["kind"] = "v1", "ConfigMap"
	return obj
}
