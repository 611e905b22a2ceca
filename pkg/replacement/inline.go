package replacement

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// embedded walks into a string that holds a YAML or JSON document, as
// kustomize does for a target path that goes on past a string field
// (data.deployment\.yaml.spec.replicas on a ConfigMap), and returns the
// document written back in its own syntax: YAML as YAML, keeping its
// order of keys, comments and styles (only the fields written change);
// JSON as JSON, indented when it was. The document is edited as YAML
// nodes, with the same path rules as the object.
func (w *walker) embedded(v any, steps []step) (any, int, *failure) {
	expected := "MappingNode"
	if steps[0].kind != stepField {
		expected = "SequenceNode"
	}
	s, ok := v.(string)
	if !ok {
		return v, 0, fail(ErrTargetField, "%s", wrongKind(expected, v))
	}
	out, n, f := w.editDocument(s, steps, expected)
	if f != nil || n == 0 {
		return v, n, f
	}
	return out, n, nil
}

// editDocument parses a document, writes through steps in it and prints
// it back.
func (w *walker) editDocument(s string, steps []step, expected string) (string, int, *failure) {
	doc, err := parseDocument(s)
	if err != nil {
		return s, 0, fail(ErrTargetField, "%s", err)
	}
	root := doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		root = doc.Content[0]
	}
	if root.Kind != yaml.MappingNode && root.Kind != yaml.SequenceNode {
		return s, 0, fail(ErrTargetField, "wrong node kind: expected %s but got ScalarNode", expected)
	}
	d := docWalker{w: w}
	n, f := d.update(root, steps)
	if f != nil || n == 0 {
		return s, n, f
	}
	out, err := printDocument(doc, s)
	if err != nil {
		return s, 0, fail(ErrValue, "%s", err)
	}
	return out, n, nil
}

// parseDocument reads the one YAML (or JSON) document of a string. A
// string of several documents is refused: writing back the first would
// lose the others.
func parseDocument(s string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(strings.NewReader(s))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: tagNull}, nil
		}
		return nil, err
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, errors.New("the string holds several YAML documents")
	}
	return &doc, nil
}

// printDocument prints a document in the syntax of the text it was read
// from: JSON (indented if the text was) when the text starts with { or
// [, else YAML as kustomize prints it (two spaces, lists not indented).
func printDocument(doc *yaml.Node, original string) (string, error) {
	if t := strings.TrimSpace(original); t[0] == '{' || t[0] == '[' {
		var tree any
		if err := doc.Decode(&tree); err != nil {
			return "", err
		}
		tree, err := normalize(tree)
		if err != nil {
			return "", err
		}
		var b []byte
		if strings.Contains(original, "\n") && strings.Contains(original, "  ") {
			b, err = json.MarshalIndent(tree, "", "  ")
		} else {
			b, err = json.Marshal(tree)
		}
		return string(b), err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(doc); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

// docWalker writes through a target path in a document's YAML nodes, in
// place (the nodes are the walk's own), with the rules of walker.
type docWalker struct {
	w *walker
}

// update writes every field that steps reach from n, and returns how
// many it wrote.
func (d docWalker) update(n *yaml.Node, steps []step) (int, *failure) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if len(steps) == 0 {
		return 1, d.set(n, false)
	}
	switch n.Kind {
	case yaml.MappingNode:
		if steps[0].kind != stepField {
			return 0, fail(ErrTargetField, "wrong node kind: expected SequenceNode but got MappingNode")
		}
		return d.field(n, steps)
	case yaml.SequenceNode:
		switch steps[0].kind {
		case stepField:
			return 0, fail(ErrTargetField, "wrong node kind: expected MappingNode but got SequenceNode")
		case stepIndex:
			return d.index(n, steps)
		case stepMatch:
			return d.match(n, steps)
		}
		return d.every(n, steps)
	}
	if isNullNode(n) {
		return 0, nil // a missing field; create replaces it in its parent
	}
	// a string holding a document of its own
	expected := "MappingNode"
	if steps[0].kind != stepField {
		expected = "SequenceNode"
	}
	if n.ShortTag() != tagStr {
		return 0, fail(ErrTargetField, "wrong node kind: expected %s but got ScalarNode", expected)
	}
	out, written, f := d.w.editDocument(n.Value, steps, expected)
	if f == nil && written > 0 {
		n.Value = out
	}
	return written, f
}

// child walks into a map value or list item that may be missing (nil)
// or null; it returns the node to put in its place when create made one.
func (d docWalker) child(c *yaml.Node, rest []step) (*yaml.Node, int, *failure) {
	if c != nil && (!isNullNode(c) || len(rest) == 0) {
		n, f := d.update(c, rest)
		return nil, n, f
	}
	if !d.w.create {
		return nil, 0, nil
	}
	nc := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if len(rest) == 0 {
		return nc, 1, d.set(nc, true)
	}
	if rest[0].createsList() {
		nc = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	}
	n, f := d.update(nc, rest)
	return nc, n, f
}

func (d docWalker) field(m *yaml.Node, steps []step) (int, *failure) {
	key := steps[0].key
	var c *yaml.Node
	at := -1
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			c, at = m.Content[i+1], i+1
			break
		}
	}
	nc, n, f := d.child(c, steps[1:])
	if f != nil || n == 0 || nc == nil {
		return n, f
	}
	if at >= 0 {
		m.Content[at] = nc
	} else {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: tagStr, Value: key}, nc)
	}
	return n, nil
}

func (d docWalker) index(l *yaml.Node, steps []step) (int, *failure) {
	idx := steps[0].index
	if idx == len(l.Content) && d.w.create {
		nc, n, f := d.child(nil, steps[1:])
		if f == nil && n > 0 {
			l.Content = append(l.Content, nc)
		}
		return n, f
	}
	if idx >= len(l.Content) {
		return 0, fail(ErrTargetField, "index %d specified but only %d elements found", idx, len(l.Content))
	}
	return d.item(l, idx, steps[1:])
}

// item walks into the list item at i.
func (d docWalker) item(l *yaml.Node, i int, rest []step) (int, *failure) {
	nc, n, f := d.child(l.Content[i], rest)
	if f == nil && nc != nil {
		l.Content[i] = nc
	}
	return n, f
}

func (d docWalker) every(l *yaml.Node, steps []step) (int, *failure) {
	total := 0
	for i := range l.Content {
		n, f := d.item(l, i, steps[1:])
		if f != nil {
			return 0, f
		}
		total += n
	}
	return total, nil
}

func (d docWalker) match(l *yaml.Node, steps []step) (int, *failure) {
	st := steps[0]
	total := 0
	for i, it := range l.Content {
		if !st.matchesNode(it) {
			continue
		}
		n, f := d.item(l, i, steps[1:])
		if f != nil {
			return 0, f
		}
		total += n
	}
	if total > 0 || !d.w.create {
		return total, nil
	}
	// create the item a [key=value] names, the value an untagged scalar
	v := &yaml.Node{Kind: yaml.ScalarNode, Value: st.value}
	if st.key == "" {
		nc, n, f := d.child(nil, steps[1:])
		if f == nil && n > 0 {
			l.Content = append(l.Content, nc)
		}
		return n, f
	}
	it := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: tagStr, Value: st.key}, v}}
	n, f := d.update(it, steps[1:])
	if f == nil && n > 0 {
		l.Content = append(l.Content, it)
	}
	return n, f
}

// matchesNode reports whether a list item matches a [key=regexp] step:
// the regular expression is matched against the item (or its key's
// value) as YAML prints it.
func (s step) matchesNode(item *yaml.Node) bool {
	if s.key == "" {
		return s.re.MatchString(nodeText(item))
	}
	if item.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(item.Content); i += 2 {
		if item.Content[i].Value == s.key {
			return s.re.MatchString(nodeText(item.Content[i+1]))
		}
	}
	return false
}

// nodeText is a node as YAML prints it, without surrounding space.
func nodeText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.Style == 0 && !strings.Contains(n.Value, "\n") {
		return n.Value
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(n); err != nil {
		return ""
	}
	_ = enc.Close()
	return strings.TrimSpace(b.String())
}

func isNullNode(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == tagNull
}

// set writes the walk's value into a node, as kustomize's setFieldValue
// does: a scalar keeps its tag and style and takes the value's text,
// which must fit the tag; a map or list (or a node create just made, or
// a null) is replaced by the value.
func (d docWalker) set(n *yaml.Node, created bool) *failure {
	v, o := d.w.val, d.w.opts
	scalar := !created && n.Kind == yaml.ScalarNode && !isNullNode(n)
	if o.delimiter != "" {
		if !scalar && !created {
			return fail(ErrValue, "delimiter option can only be used with scalar nodes")
		}
		old := ""
		if scalar {
			old = n.Value
		}
		v = value{text: o.splice(old, v.text), tag: v.tag}
	}
	if scalar {
		if _, err := resolve(n.ShortTag(), v.text); err != nil {
			return fail(ErrValue, "yaml: %s", err)
		}
		n.Value = v.text
		return nil
	}
	nv, f := v.node()
	if f != nil {
		return f
	}
	*n = *nv
	return nil
}

// node is the value as a YAML node: a string as a string, another scalar
// with its text's own type, a map or list as YAML encodes it.
func (v value) node() (*yaml.Node, *failure) {
	if v.isScalar() {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: v.text}
		if v.tag == tagStr {
			n.Tag = tagStr
		}
		return n, nil
	}
	var n yaml.Node
	if err := n.Encode(v.tree); err != nil {
		return nil, fail(ErrValue, "%s", err)
	}
	return &n, nil
}
