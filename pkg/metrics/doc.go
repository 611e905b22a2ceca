// Package metrics is the webhook's Prometheus metrics (Metrics): its
// requests and their results, each file's applications, panics, internal
// errors, and the state of the registry and of its last good store. Every
// method does nothing on a nil *Metrics.
package metrics
