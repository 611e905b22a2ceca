package yamledit

import (
	"bytes"
	"errors"
	"maps"
	"slices"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/internal/listalign"
	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// errEmptied is a block map or list that the patches emptied: its owner
// writes it again as {} or [].
var errEmptied = errors.New("the block is now empty")

// textEdit replaces the bytes [start, end) of a document's text.
type textEdit struct {
	start, end int
	text       []byte
}

// splicer rewrites the text of a document only where its object changed:
// a changed scalar in place, a new key after its map's last entry, an
// entry or item gone with its lines, and a value that changed shape (or
// that cannot be edited in place) as its entry or item written again,
// from the node tree that keeps what did not change (mergeNode). Every
// other byte of the text stays as it was.
type splicer struct {
	lines  *docLines
	layout layout
	edits  []textEdit
}

// spliceDocument returns the text of a document whose object changed
// from orig to patched, edited in place; the text is read back and must
// give patched.
func spliceDocument(text []byte, orig, patched map[string]any) ([]byte, error) {
	crlf := []byte("\r\n")
	if n := bytes.Count(text, crlf); n > 0 && n == bytes.Count(text, []byte("\r")) {
		out, err := spliceDocument(bytes.ReplaceAll(text, crlf, []byte("\n")), orig, patched)
		return bytes.ReplaceAll(out, []byte("\n"), crlf), err
	}
	if bytes.ContainsRune(text, '\r') {
		return nil, errKeepLayout
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode || doc.Content[0].Style&yaml.FlowStyle != 0 {
		return nil, errKeepLayout
	}
	s := &splicer{lines: newDocLines(text), layout: detectLayout(doc.Content[0])}
	if !s.spansDocument(doc.Content[0]) {
		return nil, errKeepLayout
	}
	if err := s.mapping(doc.Content[0], orig, patched); err != nil {
		return nil, err
	}
	out, err := s.apply()
	if err != nil || !decodesTo(out, patched) {
		return nil, errKeepLayout
	}
	return out, nil
}

// spansDocument reports whether the root mapping holds every line of the
// text that is not blank, a comment or an end marker (...): YAML parsers
// stop quietly at a line indented less than the root's keys.
func (s *splicer) spansDocument(root *yaml.Node) bool {
	k := root.Content[len(root.Content)-2]
	for i := s.lines.blockEnd(k.Line-1, k.Column-1, true, false) + 1; i < s.lines.count(); i++ {
		if !s.lines.blank(i) && !s.lines.comment(i) && string(bytes.TrimSpace(s.lines.line(i))) != "..." {
			return false
		}
	}
	return true
}

// apply performs the edits on the text.
func (s *splicer) apply() ([]byte, error) {
	slices.SortStableFunc(s.edits, func(a, b textEdit) int { return a.start - b.start })
	var out bytes.Buffer
	at := 0
	for _, e := range s.edits {
		if e.start < at {
			return nil, errKeepLayout // overlapping edits
		}
		out.Write(s.lines.text[at:e.start])
		out.Write(e.text)
		at = e.end
	}
	out.Write(s.lines.text[at:])
	return out.Bytes(), nil
}

func (s *splicer) edit(start, end int, text []byte) {
	s.edits = append(s.edits, textEdit{start, end, text})
}

// mapping edits a block mapping whose map changed.
func (s *splicer) mapping(n *yaml.Node, orig, patched map[string]any) error {
	if len(patched) == 0 {
		return errEmptied
	}
	owner := n.Content[0].Column - 1
	if len(n.Content)/2 != len(orig) {
		return errKeepLayout // keys written twice, or merged in with <<
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Column-1 != owner {
			return errKeepLayout // keys out of line
		}
		key, err := nodeKey(k, orig)
		if err != nil {
			return err
		}
		if seen[key] {
			return errKeepLayout // a key written twice
		}
		seen[key] = true
		p, kept := patched[key]
		switch {
		case !kept:
			err = s.removeEntry(k, owner)
		case !jsonvalue.Equal(orig[key], p):
			err = s.changeEntry(k, v, orig[key], p)
		}
		if err != nil {
			return err
		}
	}
	var added []*yaml.Node
	for _, key := range slices.Sorted(maps.Keys(patched)) {
		if !seen[key] {
			pair, err := freshPair(key, patched[key])
			if err != nil {
				return err
			}
			added = append(added, pair...)
		}
	}
	if len(added) == 0 {
		return nil
	}
	text, err := s.layout.encode(&yaml.Node{Kind: yaml.MappingNode, Content: added}, owner)
	if err != nil {
		return err
	}
	last := s.lines.blockEnd(n.Content[len(n.Content)-2].Line-1, owner, true, true)
	at := s.lines.end(last)
	if at == len(s.lines.text) && !bytes.HasSuffix(s.lines.text, []byte("\n")) {
		text = append([]byte("\n"), text...) // the stream's last line had no line break
	}
	s.edit(at, at, text)
	return nil
}

// removeEntry removes a map entry's lines and the comment above it.
func (s *splicer) removeEntry(k *yaml.Node, owner int) error {
	first := k.Line - 1
	if s.lines.indent(first) != owner {
		return errRewrite // the first key of a sequence item, on the dash's line
	}
	last := s.lines.blockEnd(first, owner, true, true)
	first = s.lines.headStart(first, owner)
	s.edit(s.lines.start[first], s.lines.end(last), nil)
	return nil
}

// changeEntry edits a map entry whose value changed: in place where the
// value keeps its shape and layout, else the entry written again.
func (s *splicer) changeEntry(k, v *yaml.Node, orig, patched any) error {
	err := s.changeValue(v, orig, patched)
	if errors.Is(err, errEmptied) || errors.Is(err, errRewrite) {
		return s.rewriteEntry(k, v, orig, patched)
	}
	return err
}

// errRewrite asks for the entry or item that holds a value to be written
// again, as the value cannot be edited in place.
var errRewrite = errors.New("the value cannot be edited in place")

// changeValue edits a changed value in place: a block map or list by its
// entries or items, a scalar or a flow collection by its text.
func (s *splicer) changeValue(v *yaml.Node, orig, patched any) error {
	if v.Kind == yaml.AliasNode || v.Anchor != "" {
		return errKeepLayout
	}
	om, oIsMap := orig.(map[string]any)
	pm, pIsMap := patched.(map[string]any)
	ol, oIsList := orig.([]any)
	pl, pIsList := patched.([]any)
	flow := v.Style&yaml.FlowStyle != 0
	switch {
	case v.Kind == yaml.MappingNode && !flow && oIsMap && pIsMap:
		return s.mapping(v, om, pm)
	case v.Kind == yaml.SequenceNode && !flow && oIsList && pIsList:
		return s.sequence(v, ol, pl)
	case v.Kind == yaml.ScalarNode && listalign.ShapeOf(patched) == listalign.ScalarShape:
		return s.replaceScalar(v, patched)
	case flow && (oIsMap && pIsMap || oIsList && pIsList):
		return s.replaceFlow(v, orig, patched)
	}
	return errRewrite
}

// rewriteEntry writes a map entry again, from its key to the end of its
// value; what precedes the key on its line (a sequence item's dash) and
// the comment above it stay.
func (s *splicer) rewriteEntry(k, v *yaml.Node, orig, patched any) error {
	merged, err := mergeNode(v, orig, patched)
	if err != nil {
		return err
	}
	key, val := *k, *merged
	key.HeadComment, key.FootComment, val.FootComment = "", "", ""
	if key.LineComment != "" && val.LineComment == "" {
		// after the value: yaml.v3 would break the line after the key
		key.LineComment, val.LineComment = "", key.LineComment
	}
	owner := k.Column - 1
	text, err := s.layout.encode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{&key, &val}}, owner)
	if err != nil {
		return err
	}
	start := s.lines.offset(k.Line, k.Column)
	last := s.lines.blockEnd(k.Line-1, owner, true, true)
	if start < 0 {
		return errKeepLayout
	}
	s.edit(start, s.lines.end(last), bytes.TrimPrefix(text, bytes.Repeat([]byte(" "), owner)))
	return nil
}

// sequence edits a block sequence whose list changed, item by item as
// listalign.Items pairs them: new items go before the next item that stays,
// or after the last one.
func (s *splicer) sequence(n *yaml.Node, orig, patched []any) error {
	if len(patched) == 0 {
		return errEmptied
	}
	if len(n.Content) != len(orig) {
		return errKeepLayout
	}
	owner := n.Column - 1
	for _, item := range n.Content {
		if !s.itemAtDash(item, owner) {
			return errKeepLayout
		}
	}
	var pending []any // new items, inserted before the next old one
	for _, st := range listalign.Items(orig, patched) {
		if st.Op == listalign.Insert {
			pending = append(pending, patched[st.Target])
			continue
		}
		item := n.Content[st.Base]
		first := s.lines.headStart(item.Line-1, owner)
		if err := s.insertItems(s.lines.start[first], pending, owner); err != nil {
			return err
		}
		pending = nil
		switch st.Op {
		case listalign.Pair:
			if err := s.changeItem(item, owner, orig[st.Base], patched[st.Target]); err != nil {
				return err
			}
		case listalign.Delete:
			s.edit(s.lines.start[first], s.lines.end(s.lines.blockEnd(item.Line-1, owner, false, true)), nil)
		}
	}
	last := s.lines.blockEnd(n.Content[len(n.Content)-1].Line-1, owner, false, true)
	return s.insertItems(s.lines.end(last), pending, owner)
}

// insertItems inserts new sequence items at an offset.
func (s *splicer) insertItems(at int, items []any, owner int) error {
	if len(items) == 0 {
		return nil
	}
	text, err := s.layout.encode(seqNode(items), owner)
	if err != nil {
		return err
	}
	if at == len(s.lines.text) && !bytes.HasSuffix(s.lines.text, []byte("\n")) {
		text = append([]byte("\n"), text...) // the stream's last line had no line break
	}
	s.edit(at, at, text)
	return nil
}

// itemAtDash reports whether a sequence item starts on its dash's line,
// the dash first on the line at the sequence's column.
func (s *splicer) itemAtDash(item *yaml.Node, owner int) bool {
	line := s.lines.line(item.Line - 1)
	return s.lines.indent(item.Line-1) == owner && s.lines.dash(item.Line-1) &&
		len(line) > owner+1 && item.Column-1 > owner
}

// changeItem edits a sequence item whose value changed, or writes it again.
func (s *splicer) changeItem(item *yaml.Node, owner int, orig, patched any) error {
	err := s.changeValue(item, orig, patched)
	if !errors.Is(err, errEmptied) && !errors.Is(err, errRewrite) {
		return err
	}
	merged, err := mergeNode(item, orig, patched)
	if err != nil {
		return err
	}
	copied := *merged
	copied.HeadComment, copied.FootComment = "", ""
	text, err := s.layout.encode(seqNode(nil, &copied), owner)
	if err != nil {
		return err
	}
	first := item.Line - 1
	s.edit(s.lines.start[first], s.lines.end(s.lines.blockEnd(first, owner, false, true)), text)
	return nil
}

// seqNode is a sequence of new values, then of nodes.
func seqNode(values []any, nodes ...*yaml.Node) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, v := range values {
		var n yaml.Node
		if err := n.Encode(v); err != nil {
			n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
		}
		seq.Content = append(seq.Content, &n)
	}
	seq.Content = append(seq.Content, nodes...)
	return seq
}
