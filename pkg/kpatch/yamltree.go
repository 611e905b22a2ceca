package kpatch

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// treeSource records where the nodes of a YAML value are in their file,
// by their path in the value (map keys, and list indexes written [i]),
// and the text of its plain numbers and booleans, so that a number
// written into a string field keeps its text and a problem found later
// is reported at its line and column.
type treeSource struct {
	nodes map[string]sourceNode
}

// sourceNode is one node of a YAML value.
type sourceNode struct {
	keyLine, keyCol int // its key in the parent map; 0 for list items
	line, col       int
	raw             string // the text of a plain number or boolean
}

func sourceKey(path []string) string { return strings.Join(path, "\x00") }

func (s *treeSource) node(path []string) (sourceNode, bool) {
	if s == nil {
		return sourceNode{}, false
	}
	n, ok := s.nodes[sourceKey(path)]
	return n, ok
}

func (s *treeSource) raw(path []string) string {
	n, _ := s.node(path)
	return n.raw
}

// yamlData converts a YAML node into JSON-shaped data (string keys, int64
// numbers, json.Number for integers beyond 64 bits) and records its
// source. A non-finite float (.inf, .nan) is a problem at its node: JSON
// cannot carry it.
func yamlData(n *yaml.Node) (any, *treeSource, *problem) {
	src := &treeSource{nodes: map[string]sourceNode{}}
	v, err := src.data(n, nil, 0, 0)
	return v, src, err
}

func (s *treeSource) data(n *yaml.Node, path []string, keyLine, keyCol int) (any, *problem) {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	s.nodes[sourceKey(path)] = sourceNode{keyLine: keyLine, keyCol: keyCol, line: n.Line, col: n.Column, raw: plainText(n)}
	switch n.Kind {
	case yaml.MappingNode:
		return s.mapping(n, path)
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, item := range n.Content {
			v, err := s.data(item, childPath(path, "["+strconv.Itoa(i)+"]"), 0, 0)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.ScalarNode:
		return scalarData(n)
	}
	return decodedData(n) // an alias: ParseYAML bounds what aliases add (MaxAliasNodes)
}

func (s *treeSource) mapping(n *yaml.Node, path []string) (any, *problem) {
	out := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
			return decodedData(n) // complex keys and << merges: no positions inside
		}
		val, err := s.data(v, childPath(path, k.Value), k.Line, k.Column)
		if err != nil {
			return nil, err
		}
		out[k.Value] = val
	}
	return out, nil
}

func childPath(path []string, elem string) []string {
	return append(path[:len(path):len(path)], elem)
}

// plainText returns the text of a plain number or boolean.
func plainText(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode || n.Style != 0 {
		return ""
	}
	switch n.ShortTag() {
	case "!!int", "!!float", "!!bool":
		return n.Value
	}
	return ""
}

// scalarData decodes one scalar node. A timestamp is its text, as the
// API server's YAML reader keeps it (2024-01-01 is "2024-01-01").
func scalarData(n *yaml.Node) (any, *problem) {
	if n.ShortTag() == "!!timestamp" {
		return n.Value, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, errorf(ErrValue, "invalid value: %v", err).at(n.Line, n.Column)
	}
	v = normalizeYAML(v)
	if _, isFloat := v.(float64); isFloat && n.ShortTag() == "!!int" && isDigits(strings.TrimLeft(n.Value, "+-")) {
		return json.Number(strings.TrimPrefix(n.Value, "+")), nil // beyond 64 bits: every digit kept
	}
	if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return nil, errorf(ErrValue, "%s cannot be held in a Kubernetes object (JSON has no infinity or NaN); quote it for text", n.Value).at(n.Line, n.Column)
	}
	return v, nil
}

// decodedData decodes a node whole, without positions inside it.
func decodedData(n *yaml.Node) (any, *problem) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, errorf(ErrValue, "invalid value: %v", err).at(n.Line, n.Column)
	}
	v = normalizeYAML(v)
	if !finite(v) {
		return nil, errorf(ErrValue, "the value holds an infinity or NaN, which a Kubernetes object cannot hold (JSON has neither); quote it for text").at(n.Line, n.Column)
	}
	return v, nil
}

// finite reports whether a value holds no infinite or NaN float.
func finite(v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	case map[string]any:
		for _, e := range x {
			if !finite(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !finite(e) {
				return false
			}
		}
	}
	return true
}

// normalizeYAML turns decoded YAML into JSON-shaped data: int64 numbers
// (json.Number beyond 64 bits, keeping every digit), string keys.
func normalizeYAML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeYAML(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalizeYAML(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalizeYAML(e)
		}
		return x
	case int:
		return int64(x)
	case uint64:
		return json.Number(strconv.FormatUint(x, 10))
	}
	return v
}
