package admission

import (
	"slices"
	"strings"
	"sync"

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
// namespace's list, immutable, without a lock or a conversion; a change
// replaces the list of one namespace.
type SourceConfigMaps struct {
	mu          sync.Mutex // serializes writers
	byNamespace sync.Map   // namespace -> []map[string]any, by name
}

// ConfigMaps returns the source ConfigMaps of namespace, by name.
func (s *SourceConfigMaps) ConfigMaps(namespace string) []map[string]any {
	if list, ok := s.byNamespace.Load(namespace); ok {
		return list.([]map[string]any)
	}
	return nil
}

// OnAdd records a ConfigMap.
func (s *SourceConfigMaps) OnAdd(obj any, _ bool) { s.set(obj, false) }

// OnUpdate records a ConfigMap's new version.
func (s *SourceConfigMaps) OnUpdate(_, obj any) { s.set(obj, false) }

// OnDelete forgets a ConfigMap (deleted, or no longer labelled).
func (s *SourceConfigMaps) OnDelete(obj any) {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	s.set(obj, true)
}

// set replaces (or, with remove, drops) the ConfigMap in a new list of
// its namespace.
func (s *SourceConfigMaps) set(obj any, remove bool) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list := slices.DeleteFunc(slices.Clone(s.ConfigMaps(cm.Namespace)), func(o map[string]any) bool { return nameOf(o) == cm.Name })
	if !remove {
		list = append(list, configMapObject(cm))
		slices.SortFunc(list, func(a, b map[string]any) int { return strings.Compare(nameOf(a), nameOf(b)) })
	}
	if len(list) == 0 {
		s.byNamespace.Delete(cm.Namespace)
		return
	}
	s.byNamespace.Store(cm.Namespace, slices.Clip(list))
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

// nameOf is a decoded object's metadata.name.
func nameOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	return name
}
