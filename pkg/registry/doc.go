// Package registry compiles the registry ConfigMaps into a Registry: every
// patch and replacements file of their keys, compiled and bound to its
// ConfigMap's values.yaml and parameters.yaml, held to the Limits, falling
// back to its stored last good version (LastGood) when its current content
// is refused, ordered by layer, specificity, ConfigMap and key, related by
// its requires: and conflicts: metadata, and indexed by the kinds, names
// and namespaces it targets. A Registry is immutable once built and safe
// for concurrent use; a Compiler builds the next one from the ConfigMaps,
// compiling only what changed. The package reads ConfigMaps as values and
// never talks to an API server: the webhook keeps it current, the CLI
// builds one offline from manifests.
package registry
