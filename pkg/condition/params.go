package condition

import (
	"slices"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
)

// inspect finds the top-level fields of params that the checked
// expression reads (params.NAME, has(params.NAME), params['NAME']),
// sorted, and whether it reads params otherwise (as a whole, or by a
// computed key): then every field may count; and whether it has a
// comprehension (loops), as the API server's macros (all, exists, map,
// filter, their two-variable forms, sortBy...) expand into; and whether
// it reads item.
func inspect(checked *ast.AST) (names []string, whole, loops bool, item []Selection) {
	root := ast.NavigateAST(checked)
	loops = len(ast.MatchDescendants(root, ast.KindMatcher(ast.ComprehensionKind))) > 0
	for _, id := range ast.MatchDescendants(root, ast.KindMatcher(ast.IdentKind)) {
		if id.AsIdent() == ItemVar {
			item = append(item, selection(checked, id))
		}
		if id.AsIdent() != plugincel.ParamsVarName {
			continue
		}
		name, ok := paramField(id)
		if !ok {
			whole = true
			continue
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, whole, loops, item
}

// Selection is a variable's fields an expression selects (item.a.b, and
// has(item.a.b)): the field names, and where the variable is in the
// expression (1-based, Line 1 being the expression's own line).
type Selection struct {
	Path         []string
	Line, Column int
}

// selection is the fields the expression selects from id, a variable.
func selection(checked *ast.AST, id ast.NavigableExpr) Selection {
	var sel Selection
	if loc := checked.SourceInfo().GetStartLocation(id.ID()); loc.Line() > 0 {
		sel.Line, sel.Column = loc.Line(), loc.Column()+1
	}
	for e := id; ; {
		parent, ok := e.Parent()
		if !ok || parent.Kind() != ast.SelectKind {
			return sel
		}
		sel.Path = append(sel.Path, parent.AsSelect().FieldName())
		e = parent
	}
}

// paramField is the field of params that the expression above id, an
// identifier params, selects.
func paramField(id ast.NavigableExpr) (string, bool) {
	parent, ok := id.Parent()
	if !ok {
		return "", false
	}
	switch parent.Kind() {
	case ast.SelectKind:
		return parent.AsSelect().FieldName(), true
	case ast.CallKind:
		call := parent.AsCall()
		if call.FunctionName() != operators.Index || len(call.Args()) != 2 || call.Args()[0].ID() != id.ID() {
			return "", false
		}
		key := call.Args()[1]
		if key.Kind() != ast.LiteralKind {
			return "", false
		}
		s, ok := key.AsLiteral().(types.String)
		return string(s), ok
	}
	return "", false
}

// Params returns the top-level fields of params that the condition
// reads, sorted, and whether it reads params as a whole (or by a
// computed key), so that any of them may count: what a registry needs to
// know to bind the condition's file to the values of each object.
func (c *compiled) Params() (names []string, whole bool) {
	return slices.Clone(c.params), c.wholeParams
}

// ReadsItem reports whether the condition reads item (Options.Item): it
// is then evaluated per item.
func (c *compiled) ReadsItem() bool { return len(c.item) > 0 }

// ItemSelections are the fields of item the condition selects, one per
// reading of item (none: a reading of item itself), for checking them
// against the items' type.
func (c *compiled) ItemSelections() []Selection { return slices.Clone(c.item) }
