package kpatch

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Mode is what a file does to the objects it matches: ModeEnforce (the
// default) changes them; ModeAudit evaluates the file on them and changes
// nothing, so that its would-be changes can be watched before it is
// enforced (`# kpatch:mode: audit`).
type Mode string

// The modes of a file.
const (
	ModeEnforce Mode = "enforce"
	ModeAudit   Mode = "audit"
)

// ModeKey is the metadata key of a file's mode.
const ModeKey = "mode"

// FileMode is a file's mode: metadata, and where it is written.
type FileMode struct {
	// Value is ModeEnforce or ModeAudit; "" when the file has no mode:
	// line, which enforces it.
	Value Mode
	Pos   Position
}

// Audit reports whether the file is in audit mode: evaluated on the
// objects it matches, never changing them.
func (p *Patch) Audit() bool { return p.file.Metadata.Mode.Value == ModeAudit }

func modeText(m *Metadata, text string, pos Position) *ParseError {
	value := strings.TrimSpace(stripComment(text))
	switch {
	case m.Mode.Value != "":
		return metaError(pos, ErrSyntax, "mode: given twice; first at line %d", m.Mode.Pos.Line)
	case value != string(ModeEnforce) && value != string(ModeAudit):
		return metaError(pos, ErrSyntax, "mode: expected %s or %s, not %q", ModeEnforce, ModeAudit, value)
	}
	m.Mode = FileMode{Value: Mode(value), Pos: pos}
	return nil
}

func modeNode(m *Metadata, n *yaml.Node, pos Position) *ParseError {
	if n.Kind != yaml.ScalarNode {
		return metaError(pos, ErrSyntax, "mode: expected %s or %s", ModeEnforce, ModeAudit)
	}
	return modeText(m, n.Value, Position{File: pos.File, Line: n.Line, Column: n.Column})
}
