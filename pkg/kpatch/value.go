package kpatch

import (
	"strings"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/scalar"
	"kpatch.dev/kpatch/pkg/variables"
)

// Value is the right-hand side of an entry.
type Value struct {
	// Raw is the source text without an inline comment.
	Raw string
	// Scalar is the value when it holds no variable: string, int64,
	// float64, bool, nil, or json.Number for an integer beyond 64 bits
	// (every digit kept).
	Scalar any
	// Parts is the template of a value that holds variables, nil otherwise.
	Parts []ValuePart
	// Quoted marks a quoted value: a variable in it is spliced as text.
	Quoted bool
	// Tree is a map or list value, which only YAML patch files have; its
	// strings may hold variables.
	Tree any
	// Required marks a value written ${required} ($required in YAML): the
	// entry sets nothing, and the field must hold a value once every
	// file has applied (required.go).
	Required bool

	src *treeSource // where Tree's nodes are in a YAML patch file
}

// ValuePart is literal text or one variable of a template.
type ValuePart struct {
	Text string
	Var  *VarRef
}

// VarRef is a ${scope.name} reference; Path holds the dotted name.
type VarRef struct {
	Scope string // "values", "features", a built-in's ("object", "namespace"), "item", or "cel"
	Path  []string
	// CEL is the expression of a CEL value, ${cel: EXPR} (Scope
	// ScopeCEL); nil for any other.
	CEL *CELValue
}

// String prints the reference as ${scope.a.b}, a CEL value as ${cel: EXPR}.
func (r *VarRef) String() string {
	if r.CEL != nil {
		return "${" + scalar.CelPrefix + " " + r.CEL.Expr + "}"
	}
	if len(r.Path) == 0 {
		return "${" + r.Scope + "}"
	}
	return "${" + r.Scope + "." + strings.Join(r.Path, ".") + "}"
}

// IsTemplate reports whether the value holds variables.
func (v *Value) IsTemplate() bool { return v.Parts != nil }

// wholeVar returns the variable of an unquoted value that is exactly one
// variable: such a value takes the variable's type.
func (v *Value) wholeVar() *VarRef {
	if !v.Quoted && len(v.Parts) == 1 && v.Parts[0].Var != nil {
		return v.Parts[0].Var
	}
	return nil
}

// parseValue reads a value: text starts at the value and may end with a
// comment. The scalar syntax is package scalar's; a text that holds
// variables is a template.
func parseValue(text string, col int) (Value, *problem) {
	if text == "" || text[0] == '#' {
		return Value{}, nil
	}
	if v, ok := requiredValue(text); ok {
		return v, nil
	}
	sc, serr := scalar.Parse(text)
	if serr != nil {
		return Value{}, errorAt(col+serr.Offset, serr.Err, "%s", serr.Msg)
	}
	v := Value{Raw: sc.Raw, Quoted: sc.Quoted, Scalar: sc.Value}
	s, isText := sc.Value.(string)
	if !isText || !strings.Contains(s, "${") {
		return v, nil
	}
	tcol := col
	if sc.Quoted {
		tcol++ // columns count from after the quote
	}
	parts, err := parseTemplate(s, tcol)
	if err != nil {
		if sc.Quoted && strings.Contains(sc.Raw, "\\") {
			err.col = col // with escapes in the way, a problem is at the value
		}
		return Value{}, err
	}
	if parts != nil {
		v.Scalar, v.Parts = nil, parts
	} else {
		v.Scalar = literalText(s) // only escapes: plain text
	}
	return v, nil
}

// stripComment cuts a plain value at its comment (scalar.StripComment).
func stripComment(text string) string { return scalar.StripComment(text) }

// literalText resolves the `$${` escapes of a text that holds no variable.
func literalText(s string) string {
	lit, _ := scalar.Literal(s)
	return lit
}

// parseTemplate splits text into literal parts and variables
// (scalar.SplitTemplate). It returns nil parts when the text holds only
// escapes. col is the column of the text's first byte.
func parseTemplate(text string, col int) ([]ValuePart, *problem) {
	pieces, serr := scalar.SplitTemplate(text)
	var parts []ValuePart
	for _, pc := range pieces {
		if pc.Var == "" {
			parts = append(parts, ValuePart{Text: pc.Text})
			continue
		}
		ref, err := parseVarRef(pc.Var, col+pc.Offset)
		if err != nil {
			return nil, err
		}
		parts = append(parts, ValuePart{Var: ref})
	}
	if serr != nil {
		return nil, errorAt(col+serr.Offset, serr.Err, "%s", serr.Msg)
	}
	return parts, nil
}

func parseVarRef(body string, col int) (*VarRef, *problem) {
	if rest, ok := strings.CutPrefix(body, scalar.CelPrefix); ok {
		return parseCELRef(rest, col)
	}
	scope, name, ok := strings.Cut(body, ".")
	if ok && (scope == ScopeObject || scope == ScopeNamespace) {
		return parseBuiltinRef(scope, name, col)
	}
	scope, path, err := variables.ParseName(body)
	if err != nil {
		return nil, errorAt(col, ErrSyntax, "%s", err)
	}
	return &VarRef{Scope: scope, Path: path}, nil
}

// scalarText formats a scalar as text, the way a selector compares it and
// a template splices it (jsonvalue.Text). ok is false for maps and lists.
func scalarText(v any) (string, bool) { return jsonvalue.Text(v) }

// textEquals reports whether a scalar's text is s, without allocating for
// strings.
func textEquals(v any, s string) bool {
	if str, ok := v.(string); ok {
		return str == s
	}
	if v == nil {
		return false
	}
	t, ok := scalarText(v)
	return ok && t == s
}

// number returns a numeric value as float64 (jsonvalue.Float).
func number(v any) (float64, bool) { return jsonvalue.Float(v) }

// equalValue is Equal, under the name the engine's files use.
func equalValue(a, b any) bool { return jsonvalue.Equal(a, b) }
