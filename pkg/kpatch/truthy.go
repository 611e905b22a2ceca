package kpatch

import "kpatch.dev/kpatch/pkg/jsonvalue"

// Truthy reports whether a value enables something, by Kure's rule for
// enabled (jsonvalue.Truthy): it decides a file's enabled:.
func Truthy(v any) bool { return jsonvalue.Truthy(v) }
