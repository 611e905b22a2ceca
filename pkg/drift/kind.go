package drift

import "cmp"

// Kind is a kind the scan lists: its API group, version and resource (the
// list's path) and its Kind (the objects').
type Kind struct {
	Group, Version, Resource, Kind string
}

// APIVersion is the kind's apiVersion: "apps/v1", "v1" for the core
// group.
func (k Kind) APIVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// ObjectRef is an object a scan found, as it was listed.
type ObjectRef struct {
	Kind            Kind
	Namespace, Name string
	UID             string
	// ResourceVersion is the object's as it was listed: a reconcile
	// updates that version only (a precondition).
	ResourceVersion string
	// Reconciled is the value of the object's annotation
	// kpatch.dev/reconciled (ReconciledAnnotation) as listed: the
	// registry version a reconcile last updated it for.
	Reconciled string
}

// String is "Kind namespace/name".
func (r ObjectRef) String() string { return r.Kind.Kind + " " + r.Namespace + "/" + r.Name }

// refOf is the reference of an object of kind k listed in namespace ns.
func refOf(k Kind, ns string, obj map[string]any) ObjectRef {
	meta, _ := obj["metadata"].(map[string]any)
	text := func(key string) string { s, _ := meta[key].(string); return s }
	annotations, _ := meta["annotations"].(map[string]any)
	reconciled, _ := annotations[ReconciledAnnotation].(string)
	return ObjectRef{Kind: k, Namespace: cmp.Or(text("namespace"), ns), Name: text("name"), UID: text("uid"),
		ResourceVersion: text("resourceVersion"), Reconciled: reconciled}
}
