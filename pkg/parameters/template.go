package parameters

import (
	"strings"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/scalar"
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
// rules of patch files (scalar.SplitTemplate): $${ is a literal ${. It
// returns nil parts when the text holds no variable, and the text with its
// escapes resolved.
func parseTemplate(text string) ([]part, string, *problem) {
	pieces, serr := scalar.SplitTemplate(text)
	var parts []part
	refs := 0
	for _, pc := range pieces {
		if pc.Var == "" {
			parts = append(parts, part{text: pc.Text})
			continue
		}
		ref, p := parseReference(pc.Var)
		if p != nil {
			return nil, "", p
		}
		parts = append(parts, part{ref: ref})
		refs++
	}
	if serr != nil {
		return nil, "", problemf(ErrSyntax, "%s", serr.Msg)
	}
	if refs == 0 { // text only (`${}` is no variable): a literal
		literal, _ := scalar.Literal(text)
		return nil, literal, nil
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
