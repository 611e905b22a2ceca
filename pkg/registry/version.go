package registry

// versionLength is how many hex digits of a file's digest name its
// version.
const versionLength = 12

// Version names one content of a file: the first 12 hex digits of its
// SHA-256 (Digest), the same on every replica and offline. The values a
// file is bound to are no part of it.
func Version(src string) string { return Digest(src)[:versionLength] }

// Version returns the version of the file named name (configmap/key, or
// namespace/configmap/key for a tenant's) that applies: of its current
// content, or of its last good version when that applies instead; "" for
// a file that does not apply, or that was given without its source
// (NewRegistry).
func (r *Registry) Version(name string) string { return r.versions[name] }
