package kpatch

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"kpatch.dev/kpatch/pkg/variables"
)

// Built-in variables describe the object being patched and its Namespace.
// They are read-only: patch files read them, values never set them.
//
//	${object.name}                the object's name
//	${object.namespace}           the object's namespace
//	${namespace.labels.KEY}       a label of the object's Namespace
//	${namespace.annotations.KEY}  an annotation of the object's Namespace
//
// KEY is the whole label or annotation key, a Kubernetes qualified name:
// an optional DNS subdomain prefix and a slash, then a name of letters,
// digits, '-', '_' and '.' (app.kubernetes.io/part-of). It ends at the
// closing brace.
const (
	// ScopeObject is the scope of ${object.name} and ${object.namespace}.
	ScopeObject = "object"
	// ScopeNamespace is the scope of ${namespace.labels.KEY} and
	// ${namespace.annotations.KEY}.
	ScopeNamespace = "namespace"
)

// BuiltinReader gives the values of the built-in variables for one object
// (variables.BuiltinReader).
type BuiltinReader = variables.BuiltinReader

// errNoBuiltins is a built-in read where none are given: a registry
// checking a file before any object is known defers the check.
var errNoBuiltins = fmt.Errorf("%w: built-in without value", ErrVariable)

// IsBuiltin reports whether the reference reads a built-in variable.
func (r *VarRef) IsBuiltin() bool { return r.Scope == ScopeObject || r.Scope == ScopeNamespace }

// name is the reference without ${}: "object.name", "values.a.b".
func (r *VarRef) name() string { return r.Scope + "." + strings.Join(r.Path, ".") }

// parseBuiltinRef reads a built-in reference; body starts with object.
// or namespace.
func parseBuiltinRef(scope, rest string, col int) (*VarRef, *problem) {
	if scope == ScopeObject {
		if rest != "name" && rest != "namespace" {
			return nil, errorAt(col, ErrSyntax, "unknown built-in ${object.%s}; expected ${object.name} or ${object.namespace}", rest)
		}
		return &VarRef{Scope: scope, Path: []string{rest}}, nil
	}
	field, key, ok := strings.Cut(rest, ".")
	if !ok || field != "labels" && field != "annotations" {
		return nil, errorAt(col, ErrSyntax, "unknown built-in ${namespace.%s}; expected ${namespace.labels.KEY} or ${namespace.annotations.KEY}", rest)
	}
	if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
		return nil, errorAt(col, ErrSyntax, "invalid %s key %q in ${namespace.%s}: %s", strings.TrimSuffix(field, "s"), key, rest, strings.Join(msgs, "; "))
	}
	return &VarRef{Scope: scope, Path: []string{field, key}}, nil
}

// lookupBuiltin reads a built-in: text, or an error when it has no value.
func lookupBuiltin(v *Variables, ref *VarRef) (any, *problem) {
	if v == nil || v.Builtins == nil {
		return nil, errorf(errNoBuiltins, "built-in %s has no value here: the webhook gives built-ins for each object", ref)
	}
	if s, ok := v.Builtins.Lookup(ref.name()); ok {
		return s, nil
	}
	if ref.Scope == ScopeObject {
		return nil, errorf(ErrVariable, "variable %s is not defined: the object has no %s (a name from metadata.generateName is not known at admission; a cluster-scoped object has no namespace)", ref, ref.Path[0])
	}
	return nil, errorf(ErrVariable, "variable %s is not defined: the Namespace has no such %s", ref, strings.TrimSuffix(ref.Path[0], "s"))
}
