package parameters

import "strings"

// Builtins are the read-only variables that describe the object being
// patched and its Namespace: ${object.name}, ${object.namespace},
// ${namespace.labels.KEY} and ${namespace.annotations.KEY}, where KEY is
// the whole label or annotation key (it may hold dots and a slash).
type Builtins struct {
	ObjectName           string
	ObjectNamespace      string
	NamespaceLabels      map[string]string
	NamespaceAnnotations map[string]string
}

const (
	labelsPrefix      = "namespace.labels."
	annotationsPrefix = "namespace.annotations."
)

// IsBuiltin reports whether a reference (without ${}) names a built-in.
func IsBuiltin(ref string) bool {
	switch {
	case ref == "object.name", ref == "object.namespace":
		return true
	case strings.HasPrefix(ref, labelsPrefix):
		return len(ref) > len(labelsPrefix)
	case strings.HasPrefix(ref, annotationsPrefix):
		return len(ref) > len(annotationsPrefix)
	}
	return false
}

// Lookup returns the text of a built-in reference (without ${}); ok is
// false for a reference that is not a built-in, for a label or
// annotation the Namespace does not have, and for an empty name or
// namespace (an object created with metadata.generateName has no name at
// admission; a cluster-scoped object has no namespace).
func (b *Builtins) Lookup(ref string) (string, bool) {
	switch {
	case ref == "object.name":
		return b.ObjectName, b.ObjectName != ""
	case ref == "object.namespace":
		return b.ObjectNamespace, b.ObjectNamespace != ""
	case !IsBuiltin(ref):
		return "", false
	case strings.HasPrefix(ref, labelsPrefix):
		v, ok := b.NamespaceLabels[ref[len(labelsPrefix):]]
		return v, ok
	default:
		v, ok := b.NamespaceAnnotations[ref[len(annotationsPrefix):]]
		return v, ok
	}
}
