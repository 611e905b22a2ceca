// Package admission is the kpatch mutating admission webhook: a registry
// of compiled patch files kept current from ConfigMaps (Registry,
// Compiler, Watcher), the handler that applies it to the objects the API
// server sends, file by file and each under recover (Handler), its answer
// to internal errors (ErrorPolicy), the request's deadline
// (WithRequestTimeout), its per-request logger (LogConstructor), and the
// metrics of all of them (Metrics).
package admission
