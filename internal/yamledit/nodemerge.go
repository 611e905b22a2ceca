package yamledit

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/internal/listalign"
	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// errKeepLayout is a change of a document whose layout the writer cannot
// keep at that place (an anchor or alias in the way, a key it cannot read
// back); a coarser writer takes over.
var errKeepLayout = errors.New("the layout of the document cannot be kept here")

// mergeNode returns the node of patched, built from n, the node of orig:
// where the values are equal, n itself (its comments, key order, quoting
// and spelling); in a changed map, n's keys in their order, the keys gone
// dropped and the new ones after them in sorted order; in a changed list,
// n's items aligned with the new ones; a changed scalar keeps its quotes
// where it is still a string. n is not modified.
func mergeNode(n *yaml.Node, orig, patched any) (*yaml.Node, error) {
	if jsonvalue.Equal(orig, patched) {
		return n, nil
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return nil, errKeepLayout
	}
	om, oIsMap := orig.(map[string]any)
	pm, pIsMap := patched.(map[string]any)
	ol, oIsList := orig.([]any)
	pl, pIsList := patched.([]any)
	switch {
	case n.Kind == yaml.MappingNode && oIsMap && pIsMap:
		return mergeMapping(n, om, pm)
	case n.Kind == yaml.SequenceNode && oIsList && pIsList:
		return mergeSequence(n, ol, pl)
	case n.Kind == yaml.ScalarNode && listalign.ShapeOf(patched) == listalign.ScalarShape:
		return scalarNode(n, patched)
	}
	return freshNode(n, patched)
}

// mergeMapping merges a changed map into its mapping node.
func mergeMapping(n *yaml.Node, orig, patched map[string]any) (*yaml.Node, error) {
	out := *n
	out.Content = nil
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key, err := nodeKey(k, orig)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, errKeepLayout // a key written twice
		}
		seen[key] = true
		p, kept := patched[key]
		if !kept {
			continue
		}
		merged, err := mergeNode(v, orig[key], p)
		if err != nil {
			return nil, err
		}
		out.Content = append(out.Content, k, merged)
	}
	for _, key := range slices.Sorted(maps.Keys(patched)) {
		if seen[key] {
			continue
		}
		pair, err := freshPair(key, patched[key])
		if err != nil {
			return nil, err
		}
		out.Content = append(out.Content, pair...)
	}
	return &out, nil
}

// freshPair returns the key and value nodes of a new map entry.
func freshPair(key string, value any) ([]*yaml.Node, error) {
	var k, v yaml.Node
	if err := k.Encode(key); err != nil {
		return nil, err
	}
	if err := v.Encode(value); err != nil {
		return nil, err
	}
	return []*yaml.Node{&k, &v}, nil
}

// mergeSequence merges a changed list into its sequence node, the items
// aligned as a line diff aligns texts.
func mergeSequence(n *yaml.Node, orig, patched []any) (*yaml.Node, error) {
	if len(n.Content) != len(orig) {
		return nil, errKeepLayout
	}
	out := *n
	out.Content = nil
	for _, s := range listalign.Items(orig, patched) {
		switch s.Op {
		case listalign.Keep:
			out.Content = append(out.Content, n.Content[s.Base])
		case listalign.Pair:
			merged, err := mergeNode(n.Content[s.Base], orig[s.Base], patched[s.Target])
			if err != nil {
				return nil, err
			}
			out.Content = append(out.Content, merged)
		case listalign.Insert:
			var v yaml.Node
			if err := v.Encode(patched[s.Target]); err != nil {
				return nil, err
			}
			out.Content = append(out.Content, &v)
		}
	}
	return &out, nil
}

// scalarNode returns the node of a changed scalar: encoded afresh, with
// the quotes of the old one while it is a string on one line, and its
// comments.
func scalarNode(n *yaml.Node, value any) (*yaml.Node, error) {
	out, err := freshNode(n, value)
	if err != nil {
		return nil, err
	}
	quotes := n.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle)
	if s, isString := value.(string); isString && quotes != 0 && !strings.ContainsAny(s, "\n\r") {
		out.Style = quotes
	}
	return out, nil
}

// freshNode encodes value into a new node that keeps n's comments.
func freshNode(n *yaml.Node, value any) (*yaml.Node, error) {
	var out yaml.Node
	if err := out.Encode(value); err != nil {
		return nil, err
	}
	out.HeadComment, out.LineComment, out.FootComment = n.HeadComment, n.LineComment, n.FootComment
	return &out, nil
}

// nodeKey returns the key of m that a mapping key node stands for: its
// text, or for a plain key that the YAML 1.1 reader of manifests types
// (yes, on, 1), that type's text.
func nodeKey(k *yaml.Node, m map[string]any) (string, error) {
	if k.Kind != yaml.ScalarNode || k.Value == "<<" {
		return "", errKeepLayout
	}
	if _, ok := m[k.Value]; ok || k.Style != 0 {
		return k.Value, nil
	}
	js, err := sigsyaml.YAMLToJSON([]byte(k.Value))
	if err != nil {
		return "", errKeepLayout
	}
	js = bytes.TrimSpace(js)
	if s, err := strconv.Unquote(string(js)); err == nil {
		return s, nil
	}
	return string(js), nil
}
