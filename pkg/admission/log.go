package admission

import (
	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// LogConstructor builds the logger of one admission request: the
// webhook's logger with the request's kind, namespace, name, operation and
// UID. Set it as the LogConstructor of the webhook.Admission that serves the
// Handler; the Handler logs through the logger it finds in the request's
// context (logf.FromContext), so that every line names the object.
func LogConstructor(base logr.Logger, req *admission.Request) logr.Logger {
	if req == nil {
		return base
	}
	return base.WithValues(
		"kind", req.Kind.Kind,
		"namespace", req.Namespace,
		"name", req.Name,
		"operation", req.Operation,
		"uid", req.UID,
	)
}
