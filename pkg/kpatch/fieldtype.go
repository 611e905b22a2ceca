package kpatch

import "kpatch.dev/kpatch/pkg/replacement"

// ReplacementFieldType types a replacement's target field by the schema of
// its kind (k8s.io/api's Go types): string fields take a value's text,
// integer, number and boolean fields a value of their type. A kind
// without a schema (a custom resource), or a path that leaves the schema
// or ends at a free-form, int-or-string or quantity field, is typed as
// replacement.WellKnownFieldType types it. It is a
// replacement.FieldTypeFunc, set on every replacements file the registry
// and the CLI compile.
func ReplacementFieldType(apiVersion, kind string, path []string) replacement.FieldType {
	ks := schemaOf(apiVersion, kind)
	if ks == nil {
		return replacement.WellKnownFieldType(apiVersion, kind, path)
	}
	n := ks.root
	for _, part := range path {
		switch n.kind {
		case tStruct:
			n = n.fields[part]
		case tMap, tList:
			n = n.elem
		default:
			n = nil
		}
		if n == nil {
			return replacement.WellKnownFieldType(apiVersion, kind, path)
		}
	}
	switch n.kind {
	case tString, tBytes:
		return replacement.TypeString
	case tInt:
		return replacement.TypeInteger
	case tFloat:
		return replacement.TypeNumber
	case tBool:
		return replacement.TypeBoolean
	}
	return replacement.WellKnownFieldType(apiVersion, kind, path)
}

var _ replacement.FieldTypeFunc = ReplacementFieldType
