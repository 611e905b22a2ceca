package yamledit

import (
	"bytes"

	yaml "go.yaml.in/yaml/v3"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// Rewrite returns the text of a document whose object changed
// from orig to patched. It keeps every byte the changes did not reach
// (spliceDocument); where that cannot be done, the document's node tree
// with the changes merged in, printed in the document's indentation
// (encodeDocument): comments, key order, quoting and scalar spelling
// stay, blank lines and the spacing of comments do not; as a last resort,
// the object printed afresh. Each candidate is read back and must give
// the patched object.
func Rewrite(text []byte, orig, patched map[string]any) ([]byte, error) {
	if out, err := spliceDocument(text, orig, patched); err == nil {
		return out, nil
	}
	if out, err := encodeDocument(text, orig, patched); err == nil && decodesTo(out, patched) {
		return out, nil
	}
	return sigsyaml.Marshal(patched)
}

// encodeDocument prints the document's node tree with the changes merged
// in (see mergeNode). Its aliases are expanded: a change to an anchored
// value must not reach the aliases of the value as it was.
func encodeDocument(text []byte, orig, patched map[string]any) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 {
		return nil, errKeepLayout
	}
	expandAliases(doc.Content[0])
	merged, err := mergeNode(doc.Content[0], orig, patched)
	if err != nil {
		return nil, err
	}
	doc.Content[0] = merged
	return detectLayout(merged).encode(&doc, 0)
}

// decodesTo reports whether a document's text reads back as obj, the way
// manifests are read.
func decodesTo(text []byte, obj map[string]any) bool {
	js, err := sigsyaml.YAMLToJSON(text)
	if err != nil {
		return false
	}
	var got map[string]any
	if err := utiljson.Unmarshal(bytes.TrimSpace(js), &got); err != nil {
		return false
	}
	return jsonvalue.Equal(got, obj)
}

// expandAliases replaces every alias below n by a copy of the node it
// names, and drops the anchors.
func expandAliases(n *yaml.Node) {
	for i, c := range n.Content {
		if c.Kind == yaml.AliasNode && c.Alias != nil {
			n.Content[i] = copyNode(c.Alias)
		}
		expandAliases(n.Content[i])
	}
	n.Anchor = ""
}

// copyNode copies a node tree, its aliases expanded.
func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return copyNode(n.Alias)
	}
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, sub := range n.Content {
		c.Content[i] = copyNode(sub)
	}
	return &c
}
