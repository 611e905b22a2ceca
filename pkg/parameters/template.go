package parameters

import (
	"strings"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/variables"
)

// reference is a ${scope.name.key...} variable: Path[0] names the
// parameter, further keys reach into an object parameter.
type reference struct {
	Scope string
	Path  []string
}

// String formats the reference as scope.name.key.
func (r *reference) String() string { return r.Scope + "." + strings.Join(r.Path, ".") }

// part is literal text or one variable of a template.
type part struct {
	text string
	ref  *reference
}

// parseReference reads "values.a.b" or "features.a", by the rules of
// patch files (variables.ParseName).
func parseReference(body string) (*reference, *problem) {
	scope, path, err := variables.ParseName(body)
	if err != nil {
		return nil, problemf(ErrSyntax, "%s", err)
	}
	return &reference{Scope: scope, Path: path}, nil
}

// parseTemplate splits text into literal parts and variables, with the
// rules of patch files: $${ is a literal ${. It returns nil parts when the
// text holds no variable, and the text with its escapes resolved.
func parseTemplate(text string) ([]part, string, *problem) {
	var (
		parts  []part
		lit    strings.Builder
		hasVar bool
	)
	for i := 0; i < len(text); {
		switch {
		case strings.HasPrefix(text[i:], "$${"):
			lit.WriteString("${")
			i += 3
		case strings.HasPrefix(text[i:], "${"):
			end := strings.IndexByte(text[i:], '}')
			if end < 0 {
				return nil, "", problemf(ErrSyntax, "variable is not closed; expected '}' (write $${ for a literal ${)")
			}
			ref, p := parseReference(text[i+2 : i+end])
			if p != nil {
				return nil, "", p
			}
			if lit.Len() > 0 {
				parts = append(parts, part{text: lit.String()})
				lit.Reset()
			}
			parts = append(parts, part{ref: ref})
			hasVar = true
			i += end + 1
		default:
			lit.WriteByte(text[i])
			i++
		}
	}
	if !hasVar {
		return nil, lit.String(), nil
	}
	if lit.Len() > 0 {
		parts = append(parts, part{text: lit.String()})
	}
	return parts, "", nil
}

// formatScalar formats a scalar as text, the way patch files splice a
// variable into text (jsonvalue.Text). Maps and lists are never spliced:
// callers check.
func formatScalar(v any) string {
	s, _ := jsonvalue.Text(v)
	return s
}
