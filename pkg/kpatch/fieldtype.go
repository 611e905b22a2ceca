package kpatch

import (
	"kpatch.dev/kpatch/pkg/fieldtype"
)

// ReplacementFieldType types a replacement's target field by the schema of
// its kind (k8s.io/api's Go types): string fields take a value's text,
// integer, number and boolean fields a value of their type. A kind
// without a schema (a custom resource), or a path that leaves the schema
// or ends at a free-form, int-or-string or quantity field, is typed as
// fieldtype.WellKnown types it. It is a
// fieldtype.Func, set on every replacements file the registry
// and the CLI compile.
func ReplacementFieldType(apiVersion, kind string, path []string) fieldtype.Type {
	ks := schemaOf(apiVersion, kind)
	if ks == nil {
		return fieldtype.WellKnown(apiVersion, kind, path)
	}
	n := nodeAlong(ks.root, path)
	if n == nil || scalarFieldType(n) == fieldtype.Unknown {
		return fieldtype.WellKnown(apiVersion, kind, path)
	}
	return scalarFieldType(n)
}

var _ fieldtype.Func = ReplacementFieldType

// CustomFieldTypes types a replacement's target field in a custom
// resource by the schemas that ApplyOptions.Schemas gives (see
// replacement.Replacements.TypedBy); nil for a nil schemas.
func CustomFieldTypes(schemas func(apiVersion, kind string) *CustomResourceSchema) fieldtype.Func {
	if schemas == nil {
		return nil
	}
	return func(apiVersion, kind string, path []string) fieldtype.Type {
		if s := schemas(apiVersion, kind); s != nil {
			return s.FieldType(path)
		}
		return fieldtype.Unknown
	}
}
