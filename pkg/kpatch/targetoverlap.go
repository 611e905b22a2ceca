package kpatch

// mayOverlap reports whether two targets can hit the same object of a
// kind both match: groups and versions that agree, and a name and a
// namespace that both targets' patterns match (namesOverlap,
// namespacesOverlap). Two globs overlap only if some string matches both:
// [deployment.web-*] and [deployment.api-*] never hit one object.
func mayOverlap(a, b *Target) bool {
	if a.HasGroup && b.HasGroup && (a.Group != b.Group || a.Version != "" && b.Version != "" && a.Version != b.Version) {
		return false
	}
	return namesOverlap(a.Name, a.NameLiteral, b.Name, b.NameLiteral) && namespacesOverlap(a.Namespace, b.Namespace)
}
