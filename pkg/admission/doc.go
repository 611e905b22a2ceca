// Package admission is the kpatch mutating admission webhook: the HTTP
// handler of AdmissionReviews (Webhook) and the request's deadline
// (WithRequestTimeout) and logger (LogConstructor); the Handler that runs
// the current registry (pkg/registry) over the objects the API server
// sends through the one apply loop (pkg/apply), and its answer to
// internal errors (ErrorPolicy); the Watcher that keeps the registry
// current from the registry ConfigMaps, with its last good store
// (LastGoodStore) and Events. Their metrics are in pkg/metrics.
package admission
