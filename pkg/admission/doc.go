// Package admission is the kpatch mutating admission webhook: a registry
// of compiled patch files kept current from ConfigMaps (Registry,
// Compiler, Watcher), the handler that applies it to the objects the API
// server sends (Handler), and the metrics of both (Metrics).
package admission
