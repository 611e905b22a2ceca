package kpatch

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// ReconcileKey is the metadata key that opts a file in to the reconcile
// of existing objects: `# kpatch:reconcile: true`, or reconcile: true in
// a YAML patch file's metadata entry (docs/drift.md).
const ReconcileKey = "reconcile"

// Reconcile reports whether the file opts in to the reconcile of
// existing objects: an object the drift scan finds it would change now is
// updated through the API server, so that the change comes from the
// admission path (docs/drift.md).
func (p *Patch) Reconcile() bool { return p.file.Metadata.Reconcile }

// reconcileText reads `true` or `false`.
func reconcileText(m *Metadata, text string, pos Position) *ParseError {
	value := strings.TrimSpace(stripComment(text))
	switch {
	case m.ReconcilePos != (Position{}):
		return metaError(pos, ErrSyntax, "%s: given twice; first at line %d", ReconcileKey, m.ReconcilePos.Line)
	case value != "true" && value != "false":
		return metaError(pos, ErrSyntax, "%s: expected true or false, not %q", ReconcileKey, value)
	}
	m.Reconcile, m.ReconcilePos = value == "true", pos
	return nil
}

func reconcileNode(m *Metadata, n *yaml.Node, pos Position) *ParseError {
	if n.Kind != yaml.ScalarNode {
		return metaError(pos, ErrSyntax, "%s: expected true or false", ReconcileKey)
	}
	return reconcileText(m, n.Value, Position{File: pos.File, Line: n.Line, Column: n.Column})
}
