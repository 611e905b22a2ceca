package condition

import (
	"github.com/google/cel-go/common/ast"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
)

// readsManagedFields reports whether the checked expression may read the
// object's metadata.managedFields: it reads object other than as a field
// of it that is not metadata, or a field of object.metadata that is not
// managedFields (object.spec.replicas, object.metadata.labels), or
// podMetadata (a Pod's own metadata) other than as a field that is not
// managedFields. Anything else, object whole, object.metadata whole, an
// index or an optional field, counts as reading them.
func readsManagedFields(checked *ast.AST) bool {
	root := ast.NavigateAST(checked)
	for _, id := range ast.MatchDescendants(root, ast.KindMatcher(ast.IdentKind)) {
		path := selection(checked, id).Path
		switch id.AsIdent() {
		case plugincel.ObjectVarName:
			if len(path) == 0 || (path[0] == "metadata" && (len(path) == 1 || path[1] == "managedFields")) {
				return true
			}
		case PodMetadataVar:
			if len(path) == 0 || path[0] == "managedFields" {
				return true
			}
		}
	}
	return false
}

// ReadsManagedFields reports whether the expression may read the
// object's metadata.managedFields (readsManagedFields): when none that
// runs on an object does, it may be decoded without them.
func (c *compiled) ReadsManagedFields() bool { return c.managedFields }
