package replacement

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// ResID identifies an object as kustomize does: group, version and kind
// from apiVersion and kind, and metadata's name and namespace.
type ResID struct {
	Group, Version, Kind, Name, Namespace string
}

// idOf reads an object's ResID; namespace is used when the object has none
// (an object at admission).
func idOf(obj map[string]any, namespace string) ResID {
	var id ResID
	apiVersion := text(obj["apiVersion"])
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		id.Group, id.Version = g, v
	} else {
		id.Version = apiVersion
	}
	id.Kind = text(obj["kind"])
	if md, ok := obj["metadata"].(map[string]any); ok {
		id.Name = text(md["name"])
		id.Namespace = text(md["namespace"])
	}
	if id.Namespace == "" {
		id.Namespace = namespace
	}
	return id
}

// text is a scalar's text, or "" for anything else.
func text(v any) string {
	if v == nil {
		return ""
	}
	_, t, _ := scalarOf(v)
	return t
}

// String formats the id as kustomize does in its messages:
// kind.version.group/name.namespace, with [noKind] and the like for
// empty fields.
func (id ResID) String() string {
	or := func(s, empty string) string {
		if s == "" {
			return empty
		}
		return s
	}
	return or(id.Kind, "[noKind]") + "." + or(id.Version, "[noVer]") + "." + or(id.Group, "[noGrp]") +
		"/" + or(id.Name, "[noName]") + "." + or(id.Namespace, "[noNs]")
}

// Object formats the id as kpatch names objects in errors: Kind
// namespace/name.
func (id ResID) Object() string {
	if id.Namespace == "" {
		return id.Kind + " " + id.Name
	}
	return id.Kind + " " + id.Namespace + "/" + id.Name
}

// selectsSource reports whether a source selector picks the object:
// every non-empty field equal; namespaces compared as kustomize does, an
// empty namespace being "default".
func (sel ResID) selectsSource(id ResID) bool {
	return (sel.Name == "" || sel.Name == id.Name) &&
		(sel.Namespace == "" || effectiveNamespace(sel.Namespace) == effectiveNamespace(id.Namespace)) &&
		(sel.Group == "" || sel.Group == id.Group) &&
		(sel.Version == "" || sel.Version == id.Version) &&
		(sel.Kind == "" || sel.Kind == id.Kind)
}

func effectiveNamespace(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// selector is a compiled select or reject of a target: each non-empty
// field of its id is an anchored regular expression, as in kustomize, and
// the label and annotation selectors are Kubernetes label selectors.
type selector struct {
	id          ResID
	group       *regexp.Regexp
	version     *regexp.Regexp
	kind        *regexp.Regexp
	name        *regexp.Regexp
	namespace   *regexp.Regexp
	labels      labels.Selector // nil when not given
	annotations labels.Selector
}

// matchesID reports whether every field the selector names matches.
func (s *selector) matchesID(id ResID) bool {
	return matches(s.group, id.Group) && matches(s.version, id.Version) && matches(s.kind, id.Kind) &&
		matches(s.name, id.Name) && matches(s.namespace, id.Namespace)
}

func matches(re *regexp.Regexp, s string) bool { return re == nil || re.MatchString(s) }

// emptyID reports whether the selector names no group, version, kind,
// name or namespace.
func (s *selector) emptyID() bool { return s.id == ResID{} }

// hasMetaSelectors reports whether the selector has a label or an
// annotation selector.
func (s *selector) hasMetaSelectors() bool { return s.labels != nil || s.annotations != nil }

// matchesMeta reports whether the object's labels and annotations match
// the selector's label and annotation selectors (absent ones match).
func (s *selector) matchesMeta(obj map[string]any) bool {
	if s.labels == nil && s.annotations == nil {
		return true
	}
	md, _ := obj["metadata"].(map[string]any)
	return matchesSet(s.labels, md, "labels") && matchesSet(s.annotations, md, "annotations")
}

func matchesSet(sel labels.Selector, md map[string]any, field string) bool {
	if sel == nil {
		return true
	}
	m, _ := md[field].(map[string]any)
	set := make(labels.Set, len(m))
	for k, v := range m {
		set[k] = text(v)
	}
	return sel.Matches(set)
}

// targetSelector is a target's select and rejects.
type targetSelector struct {
	sel     *selector
	rejects []*selector
}

// selects reports whether the object is a target, with kustomize's rules:
// the select's id, labels and annotations all match, and no reject
// applies. A reject with an id rejects what its id matches; a reject with
// label or annotation selectors rejects what those match (each part on
// its own, as in kustomize).
func (t *targetSelector) selects(obj map[string]any, id ResID) bool {
	if !t.sel.matchesMeta(obj) {
		return false
	}
	for _, r := range t.rejects {
		if r.hasMetaSelectors() && r.matchesMeta(obj) {
			return false
		}
	}
	for _, r := range t.rejects {
		if !r.emptyID() && r.matchesID(id) {
			return false
		}
	}
	return t.sel.matchesID(id)
}
