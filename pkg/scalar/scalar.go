// Package scalar reads the text of a scalar value as patch files write it
// (the right-hand side of a .kpatch entry, the V of --set values.NAME=V):
// plain text typed by the YAML 1.2 core schema, or text in single or
// double quotes, optionally followed by a comment. Lists, maps and block
// scalars are not scalars.
//
// A value that holds ${...} variables is returned as text, for the caller
// to read as a template: SplitTemplate splits it into literal text and
// the variables as written, which the caller names; Literal resolves the
// $${ escapes of a text that holds no variable.
package scalar

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/pkg/fileerr"
)

// Error is a problem of a scalar's text, Offset bytes from its start.
type Error struct {
	Offset int
	Err    error // the sentinel cause: fileerr.ErrSyntax or fileerr.ErrValue
	Msg    string
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the sentinel cause.
func (e *Error) Unwrap() error { return e.Err }

func errorAt(offset int, sentinel error, format string, args ...any) *Error {
	return &Error{Offset: offset, Err: sentinel, Msg: fmt.Sprintf(format, args...)}
}

// Scalar is the text of a value, read.
type Scalar struct {
	// Value is string, int64, float64, bool, nil, or json.Number for an
	// integer beyond 64 bits (every digit kept).
	Value any
	// Raw is the source text without the comment; a quoted value's
	// quotes included.
	Raw string
	// Quoted marks a value in quotes: always text.
	Quoted bool
}

// Parse reads the value text starts with; text may end with a comment.
// Empty text, or a comment alone, is null.
func Parse(text string) (Scalar, *Error) {
	if text == "" || text[0] == '#' {
		return Scalar{}, nil
	}
	switch text[0] {
	case '"', '\'':
		return parseQuoted(text)
	case '[', '{':
		return Scalar{}, errorAt(0, fileerr.ErrValue, "values are scalars; a list or map needs the YAML patch format")
	case '|', '>':
		return Scalar{}, errorAt(0, fileerr.ErrValue, "block scalars are not values in a .kpatch file; write the text quoted on one line")
	}
	raw := StripComment(text)
	if strings.HasPrefix(raw, "- ") {
		return Scalar{}, errorAt(0, fileerr.ErrValue, "values are scalars; a list needs the YAML patch format or an insertion such as key[-]: item")
	}
	v, err := Plain(raw)
	if err != nil {
		return Scalar{}, err
	}
	return Scalar{Value: v, Raw: raw}, nil
}

// StripComment cuts a plain value at whitespace followed by '#', and trims
// trailing whitespace. A CEL value, ${cel: EXPR}, holds no comment: its
// EXPR may hold " #" in quoted text.
func StripComment(text string) string {
	for i := 1; i < len(text); i++ {
		if strings.HasPrefix(text[i-1:], "${"+CelPrefix) && (i < 2 || text[i-2] != '$') {
			if end := closingBrace(text[i-1:]); end > 0 {
				i += end - 1
				continue
			}
		}
		if text[i] == '#' && (text[i-1] == ' ' || text[i-1] == '\t') {
			text = text[:i]
			break
		}
	}
	return strings.TrimRight(text, " \t")
}

// parseQuoted reads a single- or double-quoted value, which may be
// followed by a comment.
func parseQuoted(text string) (Scalar, *Error) {
	end := closingQuote(text)
	if end < 0 {
		return Scalar{}, errorAt(0, fileerr.ErrSyntax, "quoted value is not closed; expected %c", text[0])
	}
	if rest := text[end+1:]; strings.TrimSpace(rest) != "" {
		trimmed := strings.TrimLeft(rest, " \t")
		if len(trimmed) == len(rest) || trimmed[0] != '#' {
			return Scalar{}, errorAt(end+1, fileerr.ErrSyntax, "unexpected text after the quoted value")
		}
	}
	tok := text[:end+1]
	s, err := unquote(tok)
	if err != nil {
		return Scalar{}, err
	}
	return Scalar{Value: s, Raw: tok, Quoted: true}, nil
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
func unquote(tok string) (string, *Error) {
	switch {
	case tok[0] == '\'':
		return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'"), nil
	case !strings.Contains(tok, "\\"):
		return tok[1 : len(tok)-1], nil // no escapes: the text itself
	}
	var s string
	if err := yaml.Unmarshal([]byte(tok), &s); err != nil {
		return "", errorAt(0, fileerr.ErrSyntax, "invalid double-quoted value: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return s, nil
}

// Literal returns text with its $${ escapes resolved, each a literal ${;
// ok is false when text holds a ${ that is not escaped: a variable.
func Literal(text string) (s string, ok bool) {
	if !strings.Contains(text, "${") {
		return text, true
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		switch {
		case strings.HasPrefix(text[i:], "$${"):
			b.WriteString("${")
			i += 3
		case strings.HasPrefix(text[i:], "${"):
			return "", false
		default:
			b.WriteByte(text[i])
			i++
		}
	}
	return b.String(), true
}

// Piece is literal text or one variable of a template.
type Piece struct {
	// Text is literal text, its $${ escapes resolved.
	Text string
	// Var is a variable as written inside ${}, such as values.a; empty
	// for text.
	Var string
	// Offset is where the variable's ${ starts in the template.
	Offset int
}

// SplitTemplate splits text into literal text and ${...} variables; $${ is
// a literal ${. A CEL value, ${cel: EXPR}, ends at the brace that
// balances its own (CelPrefix). It returns no pieces when text holds no variable. A ${
// that is not closed is an error at its offset, returned with the pieces
// before it.
func SplitTemplate(text string) ([]Piece, *Error) {
	var (
		pieces []Piece
		lit    strings.Builder
		hasVar bool
	)
	for i := 0; i < len(text); {
		switch {
		case strings.HasPrefix(text[i:], "$${"):
			lit.WriteString("${")
			i += 3
		case strings.HasPrefix(text[i:], "${"):
			end := closingBrace(text[i:])
			if end < 0 {
				if lit.Len() > 0 {
					pieces = append(pieces, Piece{Text: lit.String()})
				}
				return pieces, errorAt(i, fileerr.ErrSyntax, "variable is not closed; expected '}' (write $${ for a literal ${)")
			}
			if lit.Len() > 0 {
				pieces = append(pieces, Piece{Text: lit.String()})
				lit.Reset()
			}
			pieces = append(pieces, Piece{Var: text[i+2 : i+end], Offset: i})
			hasVar = true
			i += end + 1
		default:
			lit.WriteByte(text[i])
			i++
		}
	}
	if !hasVar {
		return nil, nil
	}
	if lit.Len() > 0 {
		pieces = append(pieces, Piece{Text: lit.String()})
	}
	return pieces, nil
}

// CelPrefix starts the body of a CEL value, ${cel: EXPR}: its EXPR may
// hold braces (a map literal) and quoted text, and the value ends at the
// brace that balances the opening one.
const CelPrefix = "cel:"

// closingBrace is the offset of the brace that closes the variable at
// the start of text (which starts with ${), or -1: the first } of a
// variable, the one that balances the opening brace of a CEL value,
// braces in its quoted text not counted.
func closingBrace(text string) int {
	if !strings.HasPrefix(text[2:], CelPrefix) {
		return strings.IndexByte(text, '}')
	}
	depth := 0
	for i := 1; i < len(text); i++ {
		switch c := text[i]; c {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i
			}
		case '\'', '"':
			i = quoteEnd(text, i)
		}
	}
	return -1
}

// quoteEnd is the offset of the quote that closes the CEL string that
// opens at text[start] (a backslash escapes the next byte), or the last
// offset when it is not closed.
func quoteEnd(text string, start int) int {
	q := text[start]
	for i := start + 1; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case q:
			return i
		}
	}
	return len(text) - 1
}

var (
	intRE   = regexp.MustCompile(`^[-+]?[0-9]+$`)
	octRE   = regexp.MustCompile(`^0o[0-7]+$`)
	hexRE   = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	floatRE = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	infRE   = regexp.MustCompile(`^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)
)

// Plain types a plain scalar by the YAML 1.2 core schema: null, booleans,
// integers (decimal, 0o octal, 0x hexadecimal) as int64 or, beyond 64
// bits, json.Number, floats as float64, and anything else as text.
// Infinity and NaN are errors: JSON cannot carry them.
func Plain(s string) (any, *Error) {
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
			return nil, errorAt(0, fileerr.ErrValue, "number %s is out of range", s)
		}
		return f, nil
	case infRE.MatchString(s):
		return nil, errorAt(0, fileerr.ErrValue, "%s cannot be held in a Kubernetes object (JSON has no infinity or NaN); quote it for text", s)
	default:
		return s, nil
	}
	if err != nil && intRE.MatchString(s) {
		return json.Number(strings.TrimPrefix(s, "+")), nil // beyond 64 bits: every digit kept
	}
	if err != nil {
		return nil, errorAt(0, fileerr.ErrValue, "integer %s is out of range", s)
	}
	return n, nil
}
