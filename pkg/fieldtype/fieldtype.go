// Package fieldtype names the type of scalar a field of an object holds,
// as the schema of its kind says: what a value written there must be. The
// engine (pkg/kpatch) answers it from the built-in kinds' schemas and the
// CRDs, the replacements (pkg/replacement) write by it; neither imports
// the other for it.
package fieldtype

import "strings"

// Type is the type of scalar a field holds. A string field receives a
// value's text exactly, whatever the value's type (the tag 1.0, the port
// 8080 and the boolean true become the strings "1.0", "8080" and
// "true"); an integer, number or boolean field receives a value of its
// type.
type Type uint8

const (
	// Unknown is a field whose type is not known, or not one scalar type
	// (free-form, int-or-string, a quantity, a kind without a schema): a
	// field that exists keeps its type, a new one (or a null) takes the
	// value's type.
	Unknown Type = iota
	// String is a string field: labels, annotations, env values.
	String
	// Integer is an integer field: replicas, ports.
	Integer
	// Number is a floating-point field.
	Number
	// Boolean is a boolean field.
	Boolean
)

// String returns the type's name.
func (t Type) String() string {
	switch t {
	case String:
		return "string"
	case Integer:
		return "integer"
	case Number:
		return "number"
	case Boolean:
		return "boolean"
	}
	return "unknown"
}

// Func returns the type of the field at path in an object of apiVersion
// and kind. The path is the field's own: map keys, and list items as their
// position in decimal (an env var's value is spec, template, spec,
// containers, 0, env, 2, value). A Func must be safe for concurrent use,
// and must neither keep nor change path.
type Func func(apiVersion, kind string, path []string) Type

// WellKnown knows the string fields that every kind shares by
// the conventions of the Kubernetes API, and reports Unknown for any
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
func WellKnown(apiVersion, kind string, path []string) Type {
	n := len(path)
	if n < 2 {
		return Unknown
	}
	switch parent := path[n-2]; parent {
	case "labels", "annotations":
		if n >= 3 && path[n-3] == "metadata" {
			return String
		}
	case "matchLabels", "nodeSelector":
		return String
	case "selector":
		if n == 3 && path[0] == "spec" && (kind == "Service" || kind == "ReplicationController") && isCoreGroup(apiVersion) {
			return String
		}
	case "data", "binaryData", "stringData":
		if n == 2 && isCoreGroup(apiVersion) && (kind == "ConfigMap" && parent != "stringData" || kind == "Secret" && parent != "binaryData") {
			return String
		}
	}
	if n >= 5 && path[n-1] == "value" && path[n-3] == "env" && isContainerList(path[n-5]) {
		return String
	}
	return Unknown
}

// isCoreGroup reports whether an apiVersion is of the core group (v1).
func isCoreGroup(apiVersion string) bool { return !strings.Contains(apiVersion, "/") }

func isContainerList(key string) bool {
	return key == "containers" || key == "initContainers" || key == "ephemeralContainers"
}
