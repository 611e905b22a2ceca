package admission

import (
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/internal/objectjson"
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/informed"
)

// conditionObjects are what the files' conditions read of one request
// beside its object: its old object and the Namespaces of the webhook's
// cache.
type conditionObjects struct {
	h    *Handler
	req  admission.Request // a copy: the request itself stays on the stack
	maps *objectjson.Maps
}

var _ apply.AdmissionObjects = (*conditionObjects)(nil)

// admission returns what the conditions of the request's files read
// beside its object (apply.Admission): the request, its old object and
// the Namespace. It allocates only when a file has conditions or the
// request is an UPDATE, whose old object the loop holds the files'
// changes of immutable fields to.
func (h *Handler) admission(req *admission.Request, maps *objectjson.Maps, files []apply.File) apply.Admission {
	if !apply.HasConditions(files) && req.Operation != admissionv1.Update {
		return apply.Admission{}
	}
	c := &conditionObjects{h: h, req: *req, maps: maps}
	return apply.Admission{Request: &c.req.AdmissionRequest, Objects: c, CostBudget: h.ConditionBudget}
}

// OldObject decodes the old object of an UPDATE into the request's maps,
// when a condition first reads the variables of the object; one that
// does not decode is null.
func (c *conditionObjects) OldObject() map[string]any {
	if len(c.req.OldObject.Raw) == 0 {
		return nil
	}
	old, err := objectjson.Decode(c.req.OldObject.Raw, c.maps)
	if err != nil {
		return nil
	}
	return old
}

// Namespace is the Namespace named name from the webhook's cache.
func (c *conditionObjects) Namespace(name string) (*corev1.Namespace, map[string]any) {
	if view, ok := informed.View(c.h.Namespaces, name); ok {
		return view.Namespace(), nil
	}
	return nil, nil
}
