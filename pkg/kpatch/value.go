package kpatch

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
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
	Scope string // "values", "features", or a built-in's: "object", "namespace"
	Path  []string
}

// String prints the reference as ${scope.a.b}.
func (r *VarRef) String() string {
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
// comment.
func parseValue(text string, col int) (Value, *problem) {
	if text == "" || text[0] == '#' {
		return Value{}, nil
	}
	if v, ok := requiredValue(text); ok {
		return v, nil
	}
	switch text[0] {
	case '"', '\'':
		return parseQuoted(text, col)
	case '[', '{':
		return Value{}, errorAt(col, ErrValue, "values are scalars; a list or map needs the YAML patch format")
	case '|', '>':
		return Value{}, errorAt(col, ErrValue, "block scalars are not values in a .kpatch file; write the text quoted on one line")
	}
	raw := stripComment(text)
	if strings.HasPrefix(raw, "- ") {
		return Value{}, errorAt(col, ErrValue, "values are scalars; a list needs the YAML patch format or an insertion such as key[-]: item")
	}
	if strings.Contains(raw, "${") {
		parts, err := parseTemplate(raw, col)
		if err != nil {
			return Value{}, err
		}
		if parts != nil {
			return Value{Raw: raw, Parts: parts}, nil
		}
		// only escapes: plain text
		return Value{Raw: raw, Scalar: literalText(raw)}, nil
	}
	v, err := resolvePlain(raw)
	if err != nil {
		return Value{}, errorAt(col, ErrValue, "%s", err.msg)
	}
	return Value{Raw: raw, Scalar: v}, nil
}

// stripComment cuts a plain value at whitespace followed by '#', and trims
// trailing whitespace.
func stripComment(text string) string {
	for i := 1; i < len(text); i++ {
		if text[i] == '#' && (text[i-1] == ' ' || text[i-1] == '\t') {
			text = text[:i]
			break
		}
	}
	return strings.TrimRight(text, " \t")
}

// parseQuoted reads a single- or double-quoted value, which may be
// followed by a comment.
func parseQuoted(text string, col int) (Value, *problem) {
	end := closingQuote(text)
	if end < 0 {
		return Value{}, errorAt(col, ErrSyntax, "quoted value is not closed; expected %c", text[0])
	}
	if rest := text[end+1:]; strings.TrimSpace(rest) != "" {
		trimmed := strings.TrimLeft(rest, " \t")
		if len(trimmed) == len(rest) || trimmed[0] != '#' {
			return Value{}, errorAt(col+end+1, ErrSyntax, "unexpected text after the quoted value")
		}
	}
	tok := text[:end+1]
	s, err := unquote(tok, col)
	if err != nil {
		return Value{}, err
	}
	v := Value{Raw: tok, Quoted: true, Scalar: s}
	if strings.Contains(s, "${") {
		// columns count from after the quote; with escapes in the way, a
		// problem is reported at the value
		parts, err := parseTemplate(s, col+1)
		if err != nil {
			if strings.Contains(tok, "\\") {
				err.col = col
			}
			return Value{}, err
		}
		if parts != nil {
			v.Scalar, v.Parts = nil, parts
		} else {
			v.Scalar = literalText(s)
		}
	}
	return v, nil
}

// closingQuote returns the index of the quote that closes the quoted
// text at the start of text, or -1.
func closingQuote(text string) int {
	q := text[0]
	for i := 1; i < len(text); i++ {
		c := text[i]
		if q == '"' && c == '\\' {
			i++
			continue
		}
		if c == q {
			if q == '\'' && i+1 < len(text) && text[i+1] == '\'' {
				i++
				continue
			}
			return i
		}
	}
	return -1
}

// unquote returns the text of a quoted token: in single quotes a doubled
// quote is one quote; double quotes take YAML's escapes.
func unquote(tok string, col int) (string, *problem) {
	switch {
	case tok[0] == '\'':
		return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'"), nil
	case !strings.Contains(tok, "\\"):
		return tok[1 : len(tok)-1], nil // no escapes: the text itself
	}
	var s string
	if err := yaml.Unmarshal([]byte(tok), &s); err != nil {
		return "", errorAt(col, ErrSyntax, "invalid double-quoted value: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return s, nil
}

// literalText resolves the `$${` escapes of a text that holds no variable.
func literalText(s string) string { return strings.ReplaceAll(s, "$${", "${") }

// parseTemplate splits text into literal parts and variables. It returns
// nil parts when the text holds only escapes.
func parseTemplate(text string, col int) ([]ValuePart, *problem) {
	var parts []ValuePart
	var lit strings.Builder
	hasVar := false
	for i := 0; i < len(text); {
		if strings.HasPrefix(text[i:], "$${") {
			lit.WriteString("${")
			i += 3
			continue
		}
		if !strings.HasPrefix(text[i:], "${") {
			lit.WriteByte(text[i])
			i++
			continue
		}
		end := strings.IndexByte(text[i:], '}')
		if end < 0 {
			return nil, errorAt(col+i, ErrSyntax, "variable is not closed; expected '}' (write $${ for a literal ${)")
		}
		ref, err := parseVarRef(text[i+2:i+end], col+i)
		if err != nil {
			return nil, err
		}
		if lit.Len() > 0 {
			parts = append(parts, ValuePart{Text: lit.String()})
			lit.Reset()
		}
		parts = append(parts, ValuePart{Var: ref})
		hasVar = true
		i += end + 1
	}
	if !hasVar {
		return nil, nil
	}
	if lit.Len() > 0 {
		parts = append(parts, ValuePart{Text: lit.String()})
	}
	return parts, nil
}

var varNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

func parseVarRef(body string, col int) (*VarRef, *problem) {
	scope, name, ok := strings.Cut(body, ".")
	if ok && (scope == ScopeObject || scope == ScopeNamespace) {
		return parseBuiltinRef(scope, name, col)
	}
	if !ok || scope != "values" && scope != "features" {
		return nil, errorAt(col, ErrSyntax, "unknown variable ${%s}; expected ${values.NAME} or ${features.NAME}", body)
	}
	path := strings.Split(name, ".")
	for _, p := range path {
		if !varNameRE.MatchString(p) {
			return nil, errorAt(col, ErrSyntax, "invalid variable name %q in ${%s}", name, body)
		}
	}
	return &VarRef{Scope: scope, Path: path}, nil
}

var (
	intRE   = regexp.MustCompile(`^[-+]?[0-9]+$`)
	octRE   = regexp.MustCompile(`^0o[0-7]+$`)
	hexRE   = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	floatRE = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	infRE   = regexp.MustCompile(`^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)
)

// resolvePlain types a plain scalar by the YAML 1.2 core schema.
func resolvePlain(s string) (any, *problem) {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return nil, nil
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	c := s[0]
	if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.') {
		return s, nil
	}
	var (
		n   int64
		err error
	)
	switch {
	case intRE.MatchString(s):
		n, err = strconv.ParseInt(s, 10, 64)
	case octRE.MatchString(s):
		n, err = strconv.ParseInt(s[2:], 8, 64)
	case hexRE.MatchString(s):
		n, err = strconv.ParseInt(s[2:], 16, 64)
	case floatRE.MatchString(s):
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || math.IsInf(f, 0) {
			return nil, errorf(ErrValue, "number %s is out of range", s)
		}
		return f, nil
	case infRE.MatchString(s):
		return nil, errorf(ErrValue, "%s cannot be held in a Kubernetes object (JSON has no infinity or NaN); quote it for text", s)
	default:
		return s, nil
	}
	if err != nil && intRE.MatchString(s) {
		return json.Number(strings.TrimPrefix(s, "+")), nil // beyond 64 bits: every digit kept
	}
	if err != nil {
		return nil, errorf(ErrValue, "integer %s is out of range", s)
	}
	return n, nil
}

// scalarText formats a scalar as text, the way a selector compares it and
// a template splices it. ok is false for maps and lists.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case nil:
		return "", true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case float64:
		return FormatFloat(x), true
	case float32:
		return FormatFloat(float64(x)), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

// FormatFloat prints a float as encoding/json does: plain notation, and
// exponent notation below 1e-6 and from 1e21 on (1e-7, 1e+21).
func FormatFloat(f float64) string {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	s := strconv.FormatFloat(f, format, -1, 64)
	if n := len(s); format == 'e' && n >= 4 && s[n-4] == 'e' && s[n-3] == '-' && s[n-2] == '0' {
		s = s[:n-2] + s[n-1:] // e-07 is written e-7
	}
	return s
}

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

// number returns a numeric value as float64.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// Equal compares two decoded values (maps, lists and scalars as JSON or
// YAML decoders give them); numbers compare by value whatever their Go
// type, so 3 and 3.0 are equal.
func Equal(a, b any) bool { return equalValue(a, b) }

// equalValue compares two unstructured values; numbers compare by value
// whatever their Go type.
func equalValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equalValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	fa, ok1 := number(a)
	fb, ok2 := number(b)
	return ok1 && ok2 && fa == fb
}
