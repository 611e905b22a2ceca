package admit

import (
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/internal/objectjson"
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/registry"
)

// Cluster is what admitting an object reads of the cluster beside it:
// the Namespaces, and the source ConfigMaps of replacements. The webhook
// reads its informers (pkg/informed), the CLI its input (Input). What it
// gives is shared and never modified.
type Cluster interface {
	// Namespace returns the Namespace named name; false when it is not
	// known (and for "").
	Namespace(name string) (Namespace, bool)
	// Read returns what a replacement reads beside an object of
	// namespace (apply.Sources): the Namespace named namespace as an
	// object and the namespace's source ConfigMaps (labelled
	// kpatch.dev/source=true), then, as fallback, those of the registry
	// namespace.
	Read(namespace string) (sources, fallback []map[string]any)
}

// Namespace is a Namespace as admitting an object reads it.
type Namespace interface {
	// Namespace is the Namespace, typed (the ${namespace.*} built-ins).
	Namespace() *corev1.Namespace
	// Values are its annotations values.kpatch.dev/NAME, sorted by key
	// (registry.ValueAnnotations).
	Values() []registry.Annotation
	// Object is the Namespace as a replacement's source reads it: a
	// decoded object with its apiVersion and kind.
	Object() map[string]any
}

// conditionObjects are what the files' conditions read of one request
// beside its object: its old object and the Namespaces of the cluster.
type conditionObjects struct {
	cluster Cluster
	req     admissionv1.AdmissionRequest // a copy: the request itself stays on the caller's stack
	oldRaw  []byte
	maps    *objectjson.Maps
}

var _ apply.AdmissionObjects = (*conditionObjects)(nil)

// admission returns what the conditions of the object's files read
// beside it (apply.Admission): the request, its old object and the
// Namespace. It allocates only when a file has conditions or the request
// is an UPDATE, whose old object the loop holds the files' changes of
// immutable fields to.
func (p *Policy) admission(in *Object, req *admissionv1.AdmissionRequest, maps *objectjson.Maps, files []apply.File) apply.Admission {
	if !apply.HasConditions(files) && in.Operation != string(admissionv1.Update) {
		return apply.Admission{}
	}
	c := &conditionObjects{cluster: p.Cluster, oldRaw: in.OldRaw, maps: maps}
	adm := apply.Admission{Objects: c, CostBudget: p.ConditionBudget}
	if req != nil {
		c.req = *req
		adm.Request = &c.req
	}
	return adm
}

// OldObject decodes the old object of an UPDATE into the request's maps,
// when a condition first reads the variables of the object; one that
// does not decode is null.
func (c *conditionObjects) OldObject() map[string]any {
	if len(c.oldRaw) == 0 {
		return nil
	}
	old, err := objectjson.Decode(c.oldRaw, c.maps)
	if err != nil {
		return nil
	}
	return old
}

// Namespace is the Namespace named name of the cluster, typed.
func (c *conditionObjects) Namespace(name string) (*corev1.Namespace, map[string]any) {
	if ns, ok := c.cluster.Namespace(name); ok {
		return ns.Namespace(), nil
	}
	return nil, nil
}
