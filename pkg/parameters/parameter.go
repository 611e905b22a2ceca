package parameters

import (
	"regexp"
	"strings"
)

// Parameter is one declared parameter of a Schema. It is immutable: its
// methods return copies.
type Parameter struct {
	name        string
	typ         Type
	required    bool
	fromObject  bool
	description string
	src         Source // the declaration
	index       int    // its place in the declaration order

	hasDefault bool
	def        any    // the default as declared; a template default is its text
	defValue   any    // the value of a default that uses no parameter
	defTexts   any    // the texts of defValue's scalars (variables.TextsOf)
	tmpl       []part // the template of a default that uses other parameters
	defSrc     Source

	enum     []any
	pattern  *regexp.Regexp
	min, max any // int64 for integers, float64 for numbers; nil when not set
}

// Name returns the parameter's name.
func (p *Parameter) Name() string { return p.name }

// Type returns the parameter's declared type.
func (p *Parameter) Type() Type { return p.typ }

// Ref returns how patch files read the parameter, without ${}:
// "features.NAME" for a boolean, "values.NAME" otherwise.
func (p *Parameter) Ref() string { return p.typ.Scope() + "." + p.name }

// Required reports whether some layer must set the parameter.
func (p *Parameter) Required() bool { return p.required }

// FromObject reports whether an object's own annotation
// values.kpatch.dev/NAME may set the parameter.
func (p *Parameter) FromObject() bool { return p.fromObject }

// Description returns the parameter's description.
func (p *Parameter) Description() string { return p.description }

// Source returns where the parameter is declared.
func (p *Parameter) Source() Source { return p.src }

// Default returns a copy of the declared default, and whether there is
// one. A default that uses other parameters is returned as its text,
// such as "${values.app}-tls".
func (p *Parameter) Default() (any, bool) {
	if !p.hasDefault {
		return nil, false
	}
	v, _ := normalize(p.def)
	return v, true
}

// Enum returns a copy of the allowed values; nil when any value is allowed.
func (p *Parameter) Enum() []any {
	if p.enum == nil {
		return nil
	}
	v, _ := normalize(p.enum)
	return v.([]any)
}

// Pattern returns the regular expression (RE2 syntax, unanchored) that a
// string parameter's value must match; empty when there is none.
func (p *Parameter) Pattern() string {
	if p.pattern == nil {
		return ""
	}
	return p.pattern.String()
}

// Minimum returns the smallest allowed value (int64 for integers, float64
// for numbers) and whether there is one.
func (p *Parameter) Minimum() (any, bool) { return p.min, p.min != nil }

// Maximum returns the largest allowed value (int64 for integers, float64
// for numbers) and whether there is one.
func (p *Parameter) Maximum() (any, bool) { return p.max, p.max != nil }

// String formats the parameter as "name (type)".
func (p *Parameter) String() string { return p.name + " (" + string(p.typ) + ")" }

// check tests a value of the parameter's type against its enum, pattern
// and bounds.
func (p *Parameter) check(v any) *problem {
	if p.enum != nil && !containsScalar(p.enum, v) {
		return problemf(ErrEnum, "%s is not one of %s", formatValue(v), formatValues(p.enum))
	}
	if s, ok := v.(string); ok && p.pattern != nil && !p.pattern.MatchString(s) {
		return problemf(ErrPattern, "%s does not match the pattern %s", quoteText(s), p.pattern)
	}
	if p.min != nil && less(v, p.min) {
		return problemf(ErrRange, "%s is less than the minimum %s", formatValue(v), formatValue(p.min))
	}
	if p.max != nil && less(p.max, v) {
		return problemf(ErrRange, "%s is more than the maximum %s", formatValue(v), formatValue(p.max))
	}
	return nil
}

// less compares two numbers of the same type (int64 or float64).
func less(a, b any) bool {
	switch x := a.(type) {
	case int64:
		return x < b.(int64)
	case float64:
		return x < b.(float64)
	}
	return false
}

func containsScalar(list []any, v any) bool {
	for _, e := range list {
		if e == v {
			return true
		}
	}
	return false
}

// formatValue writes a scalar for a message: strings quoted.
func formatValue(v any) string {
	if s, ok := v.(string); ok {
		return quoteText(s)
	}
	return formatScalar(v)
}

func formatValues(list []any) string {
	s := make([]string, len(list))
	for i, v := range list {
		s[i] = formatValue(v)
	}
	return strings.Join(s, ", ")
}
