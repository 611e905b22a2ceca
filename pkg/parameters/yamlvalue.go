package parameters

import (
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/pkg/variables"
)

// yamlBools are the plain scalars that are booleans. Kubernetes reads YAML
// with YAML 1.1 booleans (sigs.k8s.io/yaml), and so do values.yaml files
// of a registry; parameters.yaml follows the same rule.
var yamlBools = map[string]bool{
	"true": true, "True": true, "TRUE": true, "false": false, "False": false, "FALSE": false,
	"yes": true, "Yes": true, "YES": true, "no": false, "No": false, "NO": false,
	"on": true, "On": true, "ON": true, "off": false, "Off": false, "OFF": false,
	"y": true, "Y": true, "n": false, "N": false,
}

// maxNodes bounds the nodes one document may expand to through aliases.
const maxNodes = 100000

// valueReader turns YAML nodes into values: string, int64, float64, bool,
// nil, []any and map[string]any. Timestamps stay text, as in Kubernetes.
type valueReader struct {
	nodes int
}

// nodeError is a problem at a node.
type nodeError struct {
	node *yaml.Node
	*problem
}

func (r *valueReader) value(n *yaml.Node) (any, *nodeError) {
	if r.nodes++; r.nodes > maxNodes {
		return nil, &nodeError{n, problemf(ErrSyntax, "the document expands to more than %d nodes", maxNodes)}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return r.value(n.Content[0])
	case yaml.AliasNode:
		if n.Alias != nil {
			return r.value(n.Alias)
		}
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := r.value(c)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.MappingNode:
		return r.mapping(n)
	case yaml.ScalarNode:
		v, p := nodeScalar(n)
		if p != nil {
			return nil, &nodeError{n, p}
		}
		return v, nil
	}
	return nil, &nodeError{n, problemf(ErrSyntax, "unexpected YAML node")}
}

func (r *valueReader) mapping(n *yaml.Node) (any, *nodeError) {
	out := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, err := mapKey(n.Content[i])
		if err != nil {
			return nil, err
		}
		if _, dup := out[k]; dup {
			return nil, &nodeError{n.Content[i], problemf(ErrDuplicate, "key %s is given twice", quoteText(k))}
		}
		v, err := r.value(n.Content[i+1])
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// mapKey returns a map key's text: keys are scalars, as in JSON.
func mapKey(k *yaml.Node) (string, *nodeError) {
	if k.Kind == yaml.AliasNode {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return "", &nodeError{k, problemf(ErrSyntax, "a map key must be a scalar")}
	}
	if k.Tag == "!!merge" {
		return "", &nodeError{k, problemf(ErrSyntax, "merge keys (<<) are not supported")}
	}
	return k.Value, nil
}

// nodeScalar types one scalar node.
func nodeScalar(n *yaml.Node) (any, *problem) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, problemf(ErrSyntax, "invalid boolean %s", quoteText(n.Value))
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			return nil, problemf(ErrType, "integer %s is out of range", quoteText(n.Value))
		}
		return i, nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, problemf(ErrSyntax, "invalid number %s", quoteText(n.Value))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, problemf(ErrType, "%s cannot be held in a Kubernetes object (JSON has no infinity or NaN); quote it for text", n.Value)
		}
		return f, nil
	case "!!str":
		if b, ok := yamlBools[n.Value]; ok && n.Style == 0 {
			return b, nil
		}
		return n.Value, nil
	case "!!timestamp", "!!binary":
		return n.Value, nil
	}
	return nil, problemf(ErrSyntax, "unsupported tag %s", n.Tag)
}

// parseYAML reads a YAML document into its root node; a syntax error is
// placed at the line YAML reports.
func parseYAML(name string, src []byte) (*yaml.Node, *Error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		line, msg := yamlErrorLine(err.Error())
		return nil, &Error{Source: Source{Name: name, Line: line, Column: 1}, Err: ErrSyntax, Msg: "invalid YAML: " + msg}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// yamlErrorLine splits "yaml: line 3: did not find expected key" into 3
// and the message; errors without a line are at line 1.
func yamlErrorLine(msg string) (int, string) {
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 1
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		n, after, found := strings.Cut(rest, ": ")
		if l, err := strconv.Atoi(n); found && err == nil && l > 0 {
			line, msg = l, after
		}
	}
	return line, msg
}

// parseYAMLText reads text (an annotation) as one YAML value, with the
// texts of its scalars (variables.TextsOf).
func parseYAMLText(s string) (any, any, *problem) {
	root, err := parseYAML("text", []byte(s))
	if err != nil {
		return nil, nil, problemf(ErrSyntax, "%s", strings.TrimPrefix(err.Msg, "invalid YAML: "))
	}
	if root == nil {
		return nil, nil, nil
	}
	var r valueReader
	v, nerr := r.value(root)
	if nerr != nil {
		return nil, nil, nerr.problem
	}
	return v, variables.TextsOf(root), nil
}
