package yamledit

import (
	"bytes"

	yaml "go.yaml.in/yaml/v3"
)

// layout is how a YAML document indents: the spaces of one level, and
// whether a sequence under a key starts at the key's column (compact, as
// kubectl and kustomize write) or one level in.
type layout struct {
	indent  int
	compact bool
}

// detectLayout reads the layout of a document from its first nested
// mapping and its first sequence under a key; 2 spaces and compact
// sequences where the document has none.
func detectLayout(root *yaml.Node) layout {
	l := layout{indent: 2, compact: true}
	foundIndent, foundSeq := false, false
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if foundIndent && foundSeq {
			return
		}
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				block := v.Style&yaml.FlowStyle == 0 && v.Line > k.Line
				switch {
				case block && v.Kind == yaml.MappingNode && !foundIndent && v.Column > k.Column:
					l.indent, foundIndent = v.Column-k.Column, true
				case block && v.Kind == yaml.SequenceNode && !foundSeq:
					l.compact, foundSeq = v.Column == k.Column, true
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	return l
}

// encode prints a node in the layout, every line shifted right by
// owner spaces.
func (l layout) encode(n *yaml.Node, owner int) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(l.indent)
	if l.compact {
		enc.CompactSeqIndent()
	}
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if owner == 0 {
		return b.Bytes(), nil
	}
	pad := bytes.Repeat([]byte(" "), owner)
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(b.Bytes(), []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			out.Write(pad)
		}
		out.Write(line)
	}
	return out.Bytes(), nil
}
