package variables

import (
	yamlv3 "go.yaml.in/yaml/v3"
)

// quoteKeys returns the YAML document with every plain mapping key
// double-quoted, so that a YAML 1.1 reader (sigs.k8s.io/yaml, as the API
// server reads YAML) keeps keys as text: the key `n` stays "n" instead of
// becoming the boolean false, and `${values.n}` finds it. Values keep the
// reading they had. A document yaml.v3 cannot read is returned as it is,
// for the caller's reader to report.
func quoteKeys(data []byte) []byte {
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data, &doc); err != nil || !quoteKeysIn(&doc, false) {
		return data
	}
	out, err := yamlv3.Marshal(&doc)
	if err != nil {
		return data
	}
	return out
}

// quoteKeysIn quotes the plain keys of the maps below n and reports
// whether it changed any.
func quoteKeysIn(n *yamlv3.Node, changed bool) bool {
	if n.Kind == yamlv3.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yamlv3.ScalarNode && k.Style == 0 && k.Tag != "!!merge" && k.Value != "<<" {
				k.Style, k.Tag, changed = yamlv3.DoubleQuotedStyle, "!!str", true
			}
		}
	}
	for _, c := range n.Content {
		changed = quoteKeysIn(c, changed)
	}
	return changed
}
