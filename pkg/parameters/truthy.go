package parameters

import "kpatch.dev/kpatch/pkg/kpatch"

// Truthy reports whether a value enables something, by Kure's rule for
// enabled: a boolean is itself; text is true unless it is empty or, in
// any case and without surrounding spaces, false, no, 0 or disabled; a
// number is true unless it is zero (or NaN). Anything else (null, maps,
// lists) is false. It is kpatch.Truthy, which decides a file's enabled:.
func Truthy(v any) bool { return kpatch.Truthy(v) }
