package yamledit

import (
	"bytes"
	"unicode/utf8"
)

// docLines indexes the lines of a document's text, for edits by line and
// by the line and column positions of yaml.v3 nodes.
type docLines struct {
	text  []byte
	start []int // byte offset of each line
}

func newDocLines(text []byte) *docLines {
	l := &docLines{text: text, start: []int{0}}
	for i, c := range text {
		if c == '\n' && i+1 < len(text) {
			l.start = append(l.start, i+1)
		}
	}
	return l
}

func (l *docLines) count() int { return len(l.start) }

// end returns the offset just past line i and its line break.
func (l *docLines) end(i int) int {
	if i+1 < len(l.start) {
		return l.start[i+1]
	}
	return len(l.text)
}

// line returns line i without its line break.
func (l *docLines) line(i int) []byte {
	return bytes.TrimSuffix(l.text[l.start[i]:l.end(i)], []byte("\n"))
}

// indent returns the number of spaces that line i starts with.
func (l *docLines) indent(i int) int {
	line := l.line(i)
	return len(line) - len(bytes.TrimLeft(line, " "))
}

func (l *docLines) blank(i int) bool { return len(bytes.TrimSpace(l.line(i))) == 0 }

func (l *docLines) comment(i int) bool {
	return bytes.HasPrefix(bytes.TrimLeft(l.line(i), " "), []byte("#"))
}

// dash reports whether line i is a sequence item at its indentation.
func (l *docLines) dash(i int) bool {
	rest := bytes.TrimLeft(l.line(i), " ")
	return bytes.Equal(rest, []byte("-")) || bytes.HasPrefix(rest, []byte("- "))
}

// offset returns the byte offset of a yaml.v3 position (line and column
// from 1, the column in characters), or -1 when it is not in the text.
func (l *docLines) offset(line, col int) int {
	if line < 1 || line > len(l.start) || col < 1 {
		return -1
	}
	text := l.line(line - 1)
	off := 0
	for range col - 1 {
		if off >= len(text) {
			return -1
		}
		_, size := utf8.DecodeRune(text[off:])
		off += size
	}
	return l.start[line-1] + off
}

// blockEnd returns the last line of the block that starts at line first
// and whose lines are indented beyond owner (the column of its key or
// dash, from 0): lines indented more, blank lines and comment lines
// between them, and for a key's block, sequence items at owner's
// indentation (a compact sequence under the key). With trailing, the
// comment lines right after the block and indented beyond owner (no blank
// line between) belong to it.
func (l *docLines) blockEnd(first, owner int, key, trailing bool) int {
	last := first
	for i := first + 1; i < l.count(); i++ {
		switch ind := l.indent(i); {
		case l.blank(i):
		case l.comment(i):
			// a comment may sit among the items of a compact sequence
			if ind < owner || ind == owner && !key {
				return l.trailing(last, owner, trailing)
			}
		case ind > owner || key && ind == owner && l.dash(i):
			last = i
		default:
			return l.trailing(last, owner, trailing)
		}
	}
	return l.trailing(last, owner, trailing)
}

// trailing extends the block ending at last over the comment lines right
// after it that are indented beyond owner.
func (l *docLines) trailing(last, owner int, trailing bool) int {
	for trailing && last+1 < l.count() && l.comment(last+1) && l.indent(last+1) > owner {
		last++
	}
	return last
}

// headStart returns the first of the comment lines right above line i at
// its indentation: the comment that introduces it.
func (l *docLines) headStart(i, indent int) int {
	for i > 0 && l.comment(i-1) && l.indent(i-1) == indent {
		i--
	}
	return i
}
