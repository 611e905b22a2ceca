package yamledit

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// ValueNode returns the node yaml.v3 encodes v into, except that every
// string with a line break that starts with a blank or a line break
// (blockHazard) is double-quoted: yaml.v3 prints such a string as a block
// scalar with an indentation indicator that it cannot read back (nor
// encode into a node, which reads its own output). Those strings stand
// in as placeholders while v is encoded, and are put back in the node.
func ValueNode(v any) (*yaml.Node, error) {
	hazards := map[string]string{} // placeholder: the string
	marked := markHazards(v, placeholderPrefix(v), hazards)
	var n yaml.Node
	if err := n.Encode(marked); err != nil {
		return nil, err
	}
	if len(hazards) > 0 {
		restoreHazards(&n, hazards)
	}
	return &n, nil
}

// blockHazard reports whether yaml.v3 prints s as a block scalar it
// cannot read back: s holds a line break and starts with a blank or a
// line break.
func blockHazard(s string) bool {
	const breaks = "\n\r\u0085\u2028\u2029"
	first, _ := utf8.DecodeRuneInString(s)
	return strings.ContainsAny(s, breaks) && strings.ContainsRune(" \t"+breaks, first)
}

// placeholderPrefix returns a prefix that no string of v (key or value)
// starts with: NUL bytes, as many as it takes.
func placeholderPrefix(v any) string {
	prefix := "\x00"
	for hasPrefixed(v, prefix) {
		prefix += "\x00"
	}
	return prefix
}

// hasPrefixed reports whether a key or string of v starts with prefix.
func hasPrefixed(v any, prefix string) bool {
	switch x := v.(type) {
	case string:
		return strings.HasPrefix(x, prefix)
	case map[string]any:
		for k, e := range x {
			if strings.HasPrefix(k, prefix) || hasPrefixed(e, prefix) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return hasPrefixed(e, prefix) })
	}
	return false
}

// markHazards returns v with every key and string that is a block hazard
// replaced by a placeholder, recorded in hazards; v itself when it holds
// none.
func markHazards(v any, prefix string, hazards map[string]string) any {
	mark := func(s string) string {
		if !blockHazard(s) {
			return s
		}
		p := prefix + strconv.Itoa(len(hazards))
		hazards[p] = s
		return p
	}
	switch x := v.(type) {
	case string:
		return mark(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[mark(k)] = markHazards(e, prefix, hazards)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = markHazards(e, prefix, hazards)
		}
		return out
	}
	return v
}

// restoreHazards puts the strings of the placeholders back into the
// scalars of n, double-quoted.
func restoreHazards(n *yaml.Node, hazards map[string]string) {
	if s, ok := hazards[n.Value]; ok && n.Kind == yaml.ScalarNode {
		n.Value, n.Tag, n.Style = s, "!!str", yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		restoreHazards(c, hazards)
	}
}
