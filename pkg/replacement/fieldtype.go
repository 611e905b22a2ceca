package replacement

import "kpatch.dev/kpatch/pkg/fieldtype"

// article names the type with its article, for messages: "an integer".
func article(t fieldtype.Type) string {
	if t == fieldtype.Integer {
		return "an integer"
	}
	return "a " + t.String()
}

// typeOfTag is the type a YAML tag reads a value as; fieldtype.Unknown
// for none or another.
func typeOfTag(tag string) fieldtype.Type {
	for _, t := range []fieldtype.Type{fieldtype.String, fieldtype.Integer, fieldtype.Number, fieldtype.Boolean} {
		if tagOf(t) == tag {
			return t
		}
	}
	return fieldtype.Unknown
}

// tagOf is the YAML tag a value of the type is read with; tagNone for an
// unknown type.
func tagOf(t fieldtype.Type) string {
	switch t {
	case fieldtype.String:
		return tagStr
	case fieldtype.Integer:
		return tagInt
	case fieldtype.Number:
		return tagFloat
	case fieldtype.Boolean:
		return tagBool
	}
	return tagNone
}

// SetFieldTypes makes the replacements type the fields they write with
// f, usually the schema of the target's kind; nil restores
// fieldtype.WellKnown. A schema-based f should answer fieldtype.String wherever
// fieldtype.WellKnown does (call it for the fields it does not know). Call
// SetFieldTypes once, before the replacements are applied, like
// HoldToNamespace.
func (r *Replacements) SetFieldTypes(f fieldtype.Func) { r.fieldType = f }

// TypedBy returns the replacements typing the fields they write by f
// first, and as they did where f answers fieldtype.Unknown: f knows some
// kinds better, such as custom resources by their CRDs. A nil f returns
// r itself. r is not changed.
func (r *Replacements) TypedBy(f fieldtype.Func) *Replacements {
	if f == nil {
		return r
	}
	own := r.fieldTypes()
	q := *r
	q.fieldType = func(apiVersion, kind string, path []string) fieldtype.Type {
		if t := f(apiVersion, kind, path); t != fieldtype.Unknown {
			return t
		}
		return own(apiVersion, kind, path)
	}
	return &q
}

// fieldTypes returns the function that types target fields.
func (r *Replacements) fieldTypes() fieldtype.Func {
	if r.fieldType == nil {
		return fieldtype.WellKnown
	}
	return r.fieldType
}
