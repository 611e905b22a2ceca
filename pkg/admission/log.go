package admission

import (
	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// LogConstructor builds the logger of one admission request: the
// webhook's logger with the request's kind, namespace, name, operation and
// UID. Set it as the LogConstructor of the webhook.Admission that serves the
// Handler; the Handler logs through the logger it finds in the request's
// context (logf.FromContext), so that every line names the object.
//
// The values are added when a line is written (requestSink): most requests
// write none, and adding them up front (WithValues) costs a copy of the
// logger's fields on every request.
func LogConstructor(base logr.Logger, req *admission.Request) logr.Logger {
	sink := base.GetSink()
	if req == nil || sink == nil {
		return base
	}
	return base.WithSink(&requestSink{base: sink, req: requestNames{
		kind: req.Kind.Kind, namespace: req.Namespace, name: req.Name, operation: req.Operation, uid: req.UID,
	}})
}

// requestNames are what every line of a request says about it.
type requestNames struct {
	kind, namespace, name string
	operation             admissionv1.Operation
	uid                   types.UID
}

// values are the names as a logger's key/value pairs.
func (n *requestNames) values() []any {
	return []any{"kind", n.kind, "namespace", n.namespace, "name", n.name, "operation", n.operation, "uid", n.uid}
}

// requestSink is a logr.LogSink that writes through base with the
// request's values, added only when a line is written or the logger is
// given more values or a name.
type requestSink struct {
	base logr.LogSink
	req  requestNames
}

var (
	_ logr.LogSink          = (*requestSink)(nil)
	_ logr.CallDepthLogSink = (*requestSink)(nil)
)

// Init does nothing: base was initialised by its own logger.
func (s *requestSink) Init(logr.RuntimeInfo) {}

// Enabled reports whether base writes lines of level.
func (s *requestSink) Enabled(level int) bool { return s.base.Enabled(level) }

// Info writes a line with the request's values.
func (s *requestSink) Info(level int, msg string, keysAndValues ...any) {
	s.writer().Info(level, msg, keysAndValues...)
}

// Error writes an error line with the request's values.
func (s *requestSink) Error(err error, msg string, keysAndValues ...any) {
	s.writer().Error(err, msg, keysAndValues...)
}

// WithValues is base with the request's values and keysAndValues.
func (s *requestSink) WithValues(keysAndValues ...any) logr.LogSink {
	return s.base.WithValues(s.req.values()...).WithValues(keysAndValues...)
}

// WithName is base with the request's values and the name appended.
func (s *requestSink) WithName(name string) logr.LogSink {
	return s.base.WithValues(s.req.values()...).WithName(name)
}

// WithCallDepth offsets base's call site by depth frames.
func (s *requestSink) WithCallDepth(depth int) logr.LogSink {
	cd, ok := s.base.(logr.CallDepthLogSink)
	if !ok {
		return s
	}
	return &requestSink{base: cd.WithCallDepth(depth), req: s.req}
}

// writer is base with the request's values, its call site one frame
// further out (Info and Error are the frame).
func (s *requestSink) writer() logr.LogSink {
	w := s.base.WithValues(s.req.values()...)
	if cd, ok := w.(logr.CallDepthLogSink); ok {
		return cd.WithCallDepth(1)
	}
	return w
}
