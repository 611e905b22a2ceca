package yamledit

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	yaml "go.yaml.in/yaml/v3"
	"kpatch.dev/kpatch/internal/listalign"
)

// The splicer's edits of one token: a scalar, or a flow collection,
// written again in place on its line.

// replaceScalar writes a changed scalar over the old one on its line.
func (s *splicer) replaceScalar(v *yaml.Node, value any) error {
	if v.Style&(yaml.TaggedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 || v.Value == "" && v.Style == 0 {
		return errRewrite
	}
	start := s.lines.offset(v.Line, v.Column)
	end := s.scalarEnd(v, start)
	if start < 0 || end < 0 {
		return errRewrite
	}
	if text, ok := quickScalar(value, v.Style); ok {
		s.edit(start, end, []byte(text))
		return nil
	}
	n, err := scalarNode(v, value)
	if err != nil {
		return err
	}
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	text, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	text = bytes.TrimSuffix(text, []byte("\n"))
	if bytes.ContainsRune(text, '\n') {
		return errRewrite
	}
	s.edit(start, end, text)
	return nil
}

// plainSafe matches the strings that every YAML reader takes as strings
// when written plain, but for the words of yaml11Words: a letter, _ or /
// first, then no blank, quote, comment or flow indicator.
var (
	plainSafe   = regexp.MustCompile(`^[A-Za-z_/][A-Za-z0-9_./:@+=-]*$`)
	yaml11Words = map[string]bool{"y": true, "n": true, "yes": true, "no": true, "on": true, "off": true, "true": true, "false": true, "null": true}
)

// quickScalar writes the common scalars without an encoder: numbers,
// booleans, null, and strings that are plain-safe, or quoted as the old
// scalar was. ok is false for the others.
func quickScalar(value any, old yaml.Style) (string, bool) {
	switch x := value.(type) {
	case string:
		switch {
		case strings.ContainsFunc(x, unicode.IsControl) || strings.Contains(x, "\\"):
			return "", false
		case old&yaml.DoubleQuotedStyle != 0:
			return strconv.Quote(x), true
		case old&yaml.SingleQuotedStyle != 0:
			return "'" + strings.ReplaceAll(x, "'", "''") + "'", true
		case plainSafe.MatchString(x) && !yaml11Words[strings.ToLower(x)]:
			return x, true
		}
		return "", false
	case nil:
		return "null", true
	case float64:
		if math.Abs(x) >= 1<<63 {
			return "", false
		}
	}
	return listalign.ScalarText(value)
}

// scalarEnd returns the offset just past a one-line scalar that starts
// at start, or -1.
func (s *splicer) scalarEnd(v *yaml.Node, start int) int {
	line := s.lines.line(v.Line - 1)
	from := start - s.lines.start[v.Line-1]
	if from < 0 || from >= len(line) {
		return -1
	}
	rest := line[from:]
	switch {
	case v.Style&yaml.DoubleQuotedStyle != 0:
		for j := 1; j < len(rest); j++ {
			switch rest[j] {
			case '\\':
				j++
			case '"':
				return start + j + 1
			}
		}
	case v.Style&yaml.SingleQuotedStyle != 0:
		for j := 1; j < len(rest); j++ {
			if rest[j] == '\'' {
				if j+1 < len(rest) && rest[j+1] == '\'' {
					j++
					continue
				}
				return start + j + 1
			}
		}
	case bytes.HasPrefix(rest, []byte(v.Value)):
		after := strings.TrimLeft(string(rest[len(v.Value):]), " \t")
		if after == "" || after[0] == '#' {
			return start + len(v.Value)
		}
	}
	return -1
}

// replaceFlow writes a changed flow map or list again, in flow style.
func (s *splicer) replaceFlow(v *yaml.Node, orig, patched any) error {
	start := s.lines.offset(v.Line, v.Column)
	if start < 0 {
		return errRewrite
	}
	end := flowEnd(s.lines.text, start)
	merged, err := mergeNode(v, orig, patched)
	if err != nil || end < 0 {
		return errRewrite
	}
	n := *merged
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	n.Style |= yaml.FlowStyle
	text, err := yaml.Marshal(&n)
	if err != nil {
		return err
	}
	text = bytes.TrimSuffix(text, []byte("\n"))
	if bytes.ContainsRune(text, '\n') {
		return errRewrite
	}
	s.edit(start, end, text)
	return nil
}

// flowEnd returns the offset just past the flow collection that starts
// at start, or -1: brackets nest, quotes hold brackets as text.
func flowEnd(text []byte, start int) int {
	depth := 0
	for i := start; i < len(text); i++ {
		switch text[i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(text); i++ {
				if text[i] == '\'' {
					if i+1 < len(text) && text[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case '#':
			if i > start && (text[i-1] == ' ' || text[i-1] == '\t') {
				return -1 // a comment inside a flow collection
			}
		}
	}
	return -1
}
