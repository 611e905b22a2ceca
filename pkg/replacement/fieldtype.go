package replacement

import "strings"

// FieldType is the type of scalar a target field holds, as the schema of
// the target's kind says. A replacement writes a scalar typed by its
// target: a string field receives the value's text exactly, whatever the
// source's type (the tag 1.0, the port 8080 and the boolean true become
// the strings "1.0", "8080" and "true"); an integer, number or boolean
// field receives a value of its type, or the replacement fails with
// ErrValue.
type FieldType uint8

const (
	// TypeUnknown is a field whose type is not known, or not one scalar
	// type (free-form, int-or-string, a quantity, a kind without a
	// schema): a field that exists keeps its type, a new one (or a null)
	// takes the source's type. A string source gives a string; a
	// sourceValue, the type YAML reads its text as.
	TypeUnknown FieldType = iota
	// TypeString is a string field: labels, annotations, env values.
	TypeString
	// TypeInteger is an integer field: replicas, ports.
	TypeInteger
	// TypeNumber is a floating-point field.
	TypeNumber
	// TypeBoolean is a boolean field.
	TypeBoolean
)

// String returns the type's name.
func (t FieldType) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeInteger:
		return "integer"
	case TypeNumber:
		return "number"
	case TypeBoolean:
		return "boolean"
	}
	return "unknown"
}

// article names the type with its article, for messages: "an integer".
func (t FieldType) article() string {
	if t == TypeInteger {
		return "an integer"
	}
	return "a " + t.String()
}

// typeOfTag is the type a YAML tag reads a value as; TypeUnknown for
// none or another.
func typeOfTag(tag string) FieldType {
	for _, t := range []FieldType{TypeString, TypeInteger, TypeNumber, TypeBoolean} {
		if t.tag() == tag {
			return t
		}
	}
	return TypeUnknown
}

// tag is the YAML tag a value of the type is read with; tagNone for an
// unknown type.
func (t FieldType) tag() string {
	switch t {
	case TypeString:
		return tagStr
	case TypeInteger:
		return tagInt
	case TypeNumber:
		return tagFloat
	case TypeBoolean:
		return tagBool
	}
	return tagNone
}

// FieldTypeFunc returns the type of the field at path in an object of
// apiVersion and kind. The path is the field's own: map keys, and list
// items as their position in decimal (an env var's value is
// spec, template, spec, containers, 0, env, 2, value). A FieldTypeFunc is
// called for every scalar a replacement writes; it must be safe for
// concurrent use, and must neither keep nor change path.
type FieldTypeFunc func(apiVersion, kind string, path []string) FieldType

// SetFieldTypes makes the replacements type the fields they write with
// f, usually the schema of the target's kind; nil restores
// WellKnownFieldType. A schema-based f should answer TypeString wherever
// WellKnownFieldType does (call it for the fields it does not know). Call
// SetFieldTypes once, before the replacements are applied, like
// HoldToNamespace.
func (r *Replacements) SetFieldTypes(f FieldTypeFunc) { r.fieldType = f }

// TypedBy returns the replacements typing the fields they write by f
// first, and as they did where f answers TypeUnknown: f knows some
// kinds better, such as custom resources by their CRDs. A nil f returns
// r itself. r is not changed.
func (r *Replacements) TypedBy(f FieldTypeFunc) *Replacements {
	if f == nil {
		return r
	}
	own := r.fieldTypes()
	q := *r
	q.fieldType = func(apiVersion, kind string, path []string) FieldType {
		if t := f(apiVersion, kind, path); t != TypeUnknown {
			return t
		}
		return own(apiVersion, kind, path)
	}
	return &q
}

// fieldTypes returns the function that types target fields.
func (r *Replacements) fieldTypes() FieldTypeFunc {
	if r.fieldType == nil {
		return WellKnownFieldType
	}
	return r.fieldType
}

// WellKnownFieldType knows the string fields that every kind shares by
// the conventions of the Kubernetes API, and reports TypeUnknown for any
// other field:
//
//   - the labels and annotations of any metadata: metadata.labels.*,
//     spec.template.metadata.annotations.*, ...;
//   - label selectors' matchLabels.*, a pod's nodeSelector.*, and a
//     Service's or ReplicationController's spec.selector.*;
//   - a ConfigMap's data.* and binaryData.*, a Secret's data.* and
//     stringData.*;
//   - the value of an env var of a container, init container or
//     ephemeral container: ...containers.N.env.N.value.
func WellKnownFieldType(apiVersion, kind string, path []string) FieldType {
	n := len(path)
	if n < 2 {
		return TypeUnknown
	}
	switch parent := path[n-2]; parent {
	case "labels", "annotations":
		if n >= 3 && path[n-3] == "metadata" {
			return TypeString
		}
	case "matchLabels", "nodeSelector":
		return TypeString
	case "selector":
		if n == 3 && path[0] == "spec" && (kind == "Service" || kind == "ReplicationController") && isCoreGroup(apiVersion) {
			return TypeString
		}
	case "data", "binaryData", "stringData":
		if n == 2 && isCoreGroup(apiVersion) && (kind == "ConfigMap" && parent != "stringData" || kind == "Secret" && parent != "binaryData") {
			return TypeString
		}
	}
	if n >= 5 && path[n-1] == "value" && path[n-3] == "env" && isContainerList(path[n-5]) {
		return TypeString
	}
	return TypeUnknown
}

// isCoreGroup reports whether an apiVersion is of the core group (v1).
func isCoreGroup(apiVersion string) bool { return !strings.Contains(apiVersion, "/") }

func isContainerList(key string) bool {
	return key == "containers" || key == "initContainers" || key == "ephemeralContainers"
}
