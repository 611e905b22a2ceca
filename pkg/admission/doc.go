// Package admission is the kpatch mutating admission webhook: the HTTP
// handler of AdmissionReviews (Webhook) and the request's deadline
// (WithRequestTimeout) and logger (LogConstructor); the Handler that
// admits the objects the API server sends by the current registry
// (pkg/registry) with pkg/admit, over its informers, and answers with
// its JSONPatch, warnings or a denial, and internal errors by its
// ErrorPolicy; the Watcher that keeps the registry
// current from the registry ConfigMaps, with its last good store
// (LastGoodStore) and Events. Their metrics are in pkg/metrics.
package admission
