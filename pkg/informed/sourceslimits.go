package informed

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SourceLimits bound the source ConfigMaps kept of one namespace. A
// namespace keeps its ConfigMaps by name, from the first, while both
// bounds hold: the first that would pass one, and every one after it, are
// refused. Zero: no bound.
type SourceLimits struct {
	// MaxConfigMaps is the most ConfigMaps kept.
	MaxConfigMaps int
	// MaxBytes is the most bytes kept (sourceSize of each).
	MaxBytes int64
}

// DefaultSourceLimits are generous for settings read by replacements
// (a few ConfigMaps of a few KiB each), and finite.
var DefaultSourceLimits = SourceLimits{MaxConfigMaps: 100, MaxBytes: 4 << 20}

// Reasons of a SourceRefusal: the namespace keeps MaxConfigMaps already,
// or the ConfigMap would pass MaxBytes.
const (
	RefusedCount = "count"
	RefusedSize  = "size"
)

// SourceRefusal is a ConfigMap that the limits of its namespace refuse.
type SourceRefusal struct {
	// ConfigMap identifies it: namespace, name, uid, resourceVersion.
	ConfigMap *corev1.ConfigMap
	// Reason is RefusedCount or RefusedSize.
	Reason string
	// Message says why, for an Event.
	Message string
}

// sourceSize is the bytes a ConfigMap counts for MaxBytes: its name and
// the keys and values of its data, binary data, labels and annotations.
func sourceSize(cm *corev1.ConfigMap) int64 {
	n := len(cm.Name)
	for _, m := range []map[string]string{cm.Data, cm.Labels, cm.Annotations} {
		for k, v := range m {
			n += len(k) + len(v)
		}
	}
	for k, v := range cm.BinaryData {
		n += len(k) + len(v)
	}
	return int64(n)
}

// put keeps cm, within the limits; under mu.
func (s *SourceConfigMaps) put(sn *sourceNamespace, cm *corev1.ConfigMap) {
	name := cm.Name
	if old, ok := sn.byName[name]; ok {
		if old.sameVersion(cm) {
			return
		}
		e := entry(cm)
		sn.keep(name, e, false)
		if !s.trim(cm.Namespace, sn) && e.size < old.size && sn.overflow {
			s.reload(cm.Namespace) // room for the next ones by name
		}
		return
	}
	if sn.overflow && name >= sn.boundary {
		size := sourceSize(cm)
		if name == sn.boundary && s.fits(sn, size) {
			sn.keep(name, entry(cm), false)
			s.reload(cm.Namespace) // and maybe the next ones
			return
		}
		s.refuse(sn, ref(cm), s.reason(sn))
		return
	}
	sn.keep(name, entry(cm), false)
	s.trim(cm.Namespace, sn)
}

// remove forgets cm; under mu. When the namespace has refused some, they
// may fit now: it is listed again.
func (s *SourceConfigMaps) remove(sn *sourceNamespace, cm *corev1.ConfigMap) {
	if _, ok := sn.byName[cm.Name]; ok {
		sn.keep(cm.Name, sourceEntry{}, true)
		if sn.overflow {
			s.reload(cm.Namespace)
		}
		return
	}
	if sn.overflow && cm.Name == sn.boundary {
		s.reload(cm.Namespace)
	}
}

// fits reports whether one more ConfigMap of size bytes fits.
func (s *SourceConfigMaps) fits(sn *sourceNamespace, size int64) bool {
	l := s.Limits
	return (l.MaxConfigMaps <= 0 || len(sn.byName) < l.MaxConfigMaps) && (l.MaxBytes <= 0 || sn.bytes+size <= l.MaxBytes)
}

// reason is why one more ConfigMap does not fit.
func (s *SourceConfigMaps) reason(sn *sourceNamespace) string {
	if l := s.Limits; l.MaxConfigMaps > 0 && len(sn.byName)+1 > l.MaxConfigMaps {
		return RefusedCount
	}
	return RefusedSize
}

// trim drops the last ConfigMaps by name while the namespace is over a
// limit, and reports whether it dropped any; under mu.
func (s *SourceConfigMaps) trim(namespace string, sn *sourceNamespace) bool {
	l := s.Limits
	over := func() (string, bool) {
		switch {
		case l.MaxConfigMaps > 0 && len(sn.byName) > l.MaxConfigMaps:
			return RefusedCount, true
		case l.MaxBytes > 0 && sn.bytes > l.MaxBytes:
			return RefusedSize, true
		}
		return "", false
	}
	if _, ok := over(); !ok {
		return false
	}
	names := slices.Sorted(maps.Keys(sn.byName))
	for reason, ok := over(); ok; reason, ok = over() {
		last := names[len(names)-1]
		names = names[:len(names)-1]
		e := sn.byName[last]
		sn.keep(last, sourceEntry{}, true)
		sn.overflow, sn.boundary = true, last
		s.refuse(sn, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: last, UID: e.uid, ResourceVersion: e.resourceVersion}}, reason)
	}
	return true
}

// rebuild makes the namespace's ConfigMaps those of cms, the first by
// name within the limits; under mu.
func (s *SourceConfigMaps) rebuild(namespace string, sn *sourceNamespace, cms []*corev1.ConfigMap) {
	slices.SortFunc(cms, func(a, b *corev1.ConfigMap) int { return strings.Compare(a.Name, b.Name) })
	l := s.Limits
	kept := make(map[string]sourceEntry, len(cms))
	var bytes int64
	overflow, boundary := false, ""
	type refusal struct {
		cm     *corev1.ConfigMap
		reason string
	}
	var refused []refusal
	for _, cm := range cms {
		size := sourceSize(cm)
		reason := ""
		switch {
		case l.MaxConfigMaps > 0 && len(kept)+1 > l.MaxConfigMaps:
			reason = RefusedCount
		case l.MaxBytes > 0 && bytes+size > l.MaxBytes:
			reason = RefusedSize
		}
		if overflow || reason != "" {
			if !overflow {
				overflow, boundary = true, cm.Name
			}
			if reason == "" {
				reason = RefusedSize
			}
			refused = append(refused, refusal{cm, reason})
			continue
		}
		e, ok := sn.byName[cm.Name]
		if !ok || !e.sameVersion(cm) {
			e = entry(cm)
		}
		kept[cm.Name] = e
		bytes += e.size
	}
	sn.mu.Lock()
	sn.byName, sn.bytes, sn.overflow, sn.boundary = kept, bytes, overflow, boundary
	sn.list.Store(nil)
	sn.mu.Unlock()
	for _, r := range refused {
		s.refuse(sn, ref(r.cm), r.reason)
	}
	s.forgetIfEmpty(namespace, sn)
}

// refuse reports cm, refused for reason.
func (s *SourceConfigMaps) refuse(sn *sourceNamespace, cm *corev1.ConfigMap, reason string) {
	if s.Refused == nil {
		return
	}
	var msg string
	switch reason {
	case RefusedCount:
		msg = fmt.Sprintf("source ConfigMap not kept: namespace %s keeps its first %d source ConfigMaps by name (--max-source-configmaps); replacements do not read this one", cm.Namespace, s.Limits.MaxConfigMaps)
	default:
		msg = fmt.Sprintf("source ConfigMap not kept: namespace %s keeps its source ConfigMaps by name up to %s (--max-source-size), %s kept before this one; replacements do not read this one",
			cm.Namespace, resource.NewQuantity(s.Limits.MaxBytes, resource.BinarySI), resource.NewQuantity(sn.bytes, resource.BinarySI))
	}
	s.Refused(SourceRefusal{ConfigMap: cm, Reason: reason, Message: msg})
}

// ref is what identifies cm in a SourceRefusal.
func ref(cm *corev1.ConfigMap) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name, UID: cm.UID, ResourceVersion: cm.ResourceVersion}}
}
