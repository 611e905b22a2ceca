package yamledit

import yaml "go.yaml.in/yaml/v3"

// The hooks of the tests of package yamledit_test.
var (
	SpliceDocument = spliceDocument
	DecodesTo      = decodesTo
)

// EncodeInLayout prints a node with indent spaces a level, its sequences
// under keys compact or not.
func EncodeInLayout(n *yaml.Node, indent int, compact bool) ([]byte, error) {
	return layout{indent: indent, compact: compact}.encode(n, 0)
}
