package kpatch

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// File is the syntax tree of one patch file.
type File struct {
	Name     string
	Sections []*Section
	// Merges are the strategic and JSON merge patches of a YAML patch
	// file; they apply before the sections.
	Merges []*MergeEntry
	// Metadata is what the file says about itself (enabled, requires,
	// conflicts, description).
	Metadata Metadata
}

// Section is a header and the entries below it.
type Section struct {
	Target  Target
	Path    Path // the header's path after the target; may be empty
	Line    int
	Col     int
	Entries []*Entry
	// When, when set, is the section's condition: a `# kpatch:when:`
	// line between its header and its first entry.
	When *When
	// Foreach, when set, is the list the section's entries apply once
	// per element of: a `# kpatch:foreach:` line between its header and
	// its first entry. Its When is then evaluated per element.
	Foreach *When

	targetPos Position // where the target's kind is written (file unset)
}

// Entry is one `key: value` line.
type Entry struct {
	Key      Path
	Value    Value
	Line     int
	Col      int // column of the key
	ValueCol int // column of the value
	// IfAbsent marks a key written with a `?` at its end (cpu?: 250m):
	// the entry sets its field only where the object holds no value
	// there, absent or null. Key holds the path without the `?`.
	IfAbsent bool
}

// maxLineBytes bounds one line, so that a huge line is a clear error
// rather than a slow one.
const maxLineBytes = 1 << 20

// Parse reads a patch file. name is used in positions. On error it returns
// an ErrorList of *ParseError holding every problem of the file.
func Parse(name string, src []byte) (*File, error) {
	p := &lineParser{file: &File{Name: name}}
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	for lineNo := 1; len(src) > 0; lineNo++ {
		var line []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			line, src = src, nil
		}
		p.line(lineNo, bytes.TrimSuffix(line, []byte("\r")))
	}
	for _, s := range p.file.Sections {
		if line, err := s.check(); err != nil {
			p.report(line, err)
		}
	}
	if len(p.errs) > 0 {
		sortErrors(p.errs)
		return nil, p.errs
	}
	return p.file, nil
}

// lineParser collects the sections and the problems of a .kpatch file.
type lineParser struct {
	file       *File
	errs       ErrorList
	cur        *Section // the section entries go to; nil after a broken header
	seenHeader bool
}

func (p *lineParser) report(line int, e *problem) {
	p.errs = append(p.errs, e.at(line, e.col).parseError(p.file.Name))
}

// line reads one line: a comment, a header or an entry.
func (p *lineParser) line(lineNo int, line []byte) {
	if len(line) > maxLineBytes {
		p.report(lineNo, errorAt(1, ErrSyntax, "line is longer than %d bytes", maxLineBytes))
		return
	}
	if !utf8.Valid(line) {
		p.report(lineNo, errorAt(invalidUTF8Col(line), ErrEncoding, "invalid UTF-8"))
		return
	}
	text := string(line)
	indent := len(text) - len(strings.TrimLeft(text, " \t"))
	body := text[indent:]
	col := indent + 1
	switch {
	case body == "":
	case body[0] == '#':
		p.comment(lineNo, body, col)
	case isHeaderLine(body) || body[0] == '[' && !hasSeparator(body):
		p.header(lineNo, body, col)
	default:
		p.entry(lineNo, body, col)
	}
}

// header starts a section.
func (p *lineParser) header(lineNo int, body string, col int) {
	p.seenHeader = true
	s, err := parseHeader(body, col)
	if err != nil {
		p.report(lineNo, err)
		p.cur = nil // entries below a broken header are not reported again
		return
	}
	s.Line, s.Col = lineNo, col
	s.targetPos = Position{Line: lineNo, Column: col + 1 + kindOffset(&s.Target)}
	p.file.Sections = append(p.file.Sections, s)
	p.cur = s
}

// entry adds an entry to the current section.
func (p *lineParser) entry(lineNo int, body string, col int) {
	e, err := parseEntry(body, col)
	if err != nil {
		p.report(lineNo, err)
		return
	}
	if p.cur == nil {
		if !p.seenHeader {
			p.report(lineNo, errorAt(col, ErrSyntax, "entry before the first header; expected a [kind.name] header first"))
		}
		return
	}
	e.Line = lineNo
	p.cur.Entries = append(p.cur.Entries, e)
}

// ParseString is Parse on a string.
func ParseString(name, src string) (*File, error) { return Parse(name, []byte(src)) }

func invalidUTF8Col(line []byte) int {
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && n <= 1 {
			return i + 1
		}
		i += n
	}
	return 1
}

// check reports what a section cannot mean whatever object it meets:
// an insertion or delete that is not last, a delete with entries, a
// delete under an insertion header. It returns the line of the problem.
func (s *Section) check() (int, *problem) {
	for i := range s.Path {
		seg := &s.Path[i]
		last := i == len(s.Path)-1
		switch {
		case seg.isInsertion() && !last:
			return s.Line, errorAt(seg.Col, ErrSyntax, "an insertion selector must end the header")
		case seg.Kind == Delete && !last, seg.Kind == DeleteItems && !last:
			return s.Line, errorAt(seg.Col, ErrSyntax, "a delete must end the header")
		case (seg.Kind == Delete || seg.Kind == DeleteItems) && len(s.Entries) > 0:
			return s.Line, errorAt(seg.Col, ErrSyntax, "a delete header takes no entries (entry at line %d)", s.Entries[0].Line)
		case seg.isInsertion() && len(s.Entries) == 0:
			return s.Line, errorAt(seg.Col, ErrSyntax, "an insertion header needs entries that build the new item")
		}
	}
	if len(s.Path) > 0 && s.Path[len(s.Path)-1].isInsertion() {
		for _, e := range s.Entries {
			if isDeleteKey(e.Key) {
				return e.Line, errorAt(e.Col, ErrSyntax, "an entry under an insertion header builds the new item; it cannot delete")
			}
		}
	}
	return 0, nil
}

// isHeaderLine tells a header from an entry whose key starts with a
// bracket, such as `[delete]labels.team:`: a header's closing bracket ends
// the line, or is followed by a comment.
func isHeaderLine(body string) bool {
	if body[0] != '[' {
		return false
	}
	n := scanHeader(body)
	if n < 0 {
		_, valStart := splitEntry(body)
		return valStart < 0
	}
	rest := strings.TrimLeft(body[n:], " \t")
	return rest == "" || rest[0] == '#'
}

// parseHeader reads `[target.path]  # comment`.
func parseHeader(body string, col int) (*Section, *problem) {
	n := scanHeader(body)
	if n < 0 {
		return nil, errorAt(col, ErrSyntax, "header is not closed; expected ']' at the end of the line")
	}
	if rest := body[n:]; strings.TrimSpace(rest) != "" {
		trimmed := strings.TrimLeft(rest, " \t")
		if len(trimmed) == len(rest) || trimmed[0] != '#' {
			return nil, errorAt(col+n, ErrSyntax, "unexpected text after the header; a header stands alone on its line")
		}
	}
	inner := body[1 : n-1]
	t, used, err := parseTarget(inner, col+1)
	if err != nil {
		return nil, err
	}
	s := &Section{Target: t}
	rest := inner[used:]
	switch {
	case rest == "":
	case rest[0] == '.' || rest[0] == '[':
		start := 0
		if rest[0] == '.' {
			start = 1
		}
		p, err := parsePath(rest[start:], col+1+used+start)
		if err != nil {
			return nil, err
		}
		s.Path = p
	default:
		return nil, errorAt(col+1+used, ErrSyntax, "unexpected %q after the target", rest[0])
	}
	return s, nil
}

// HeaderLength returns the length of the bracketed header at the start of
// a line's text (indentation removed), as the parser scans it, or -1 when
// its brackets do not close. A formatter finds the header's inline comment
// after it.
func HeaderLength(body string) int { return scanHeader(body) }

// scanHeader returns the length of the bracketed header at the start of
// body, or -1 when its brackets do not close.
func scanHeader(body string) int {
	depth := 0
	quoted := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\':
			i++
		case c == '"' && depth > 1:
			quoted = !quoted
		case quoted:
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// trimKey drops the blanks between a key and its ':', except one that a
// '\' escapes: the key `\ ` is a field named by one space.
func trimKey(text string) string {
	t := strings.TrimRight(text, " \t")
	if len(t) < len(text) && escaped(text, len(t)) {
		return text[:len(t)+1]
	}
	return t
}

// parseEntry reads `key: value  # comment` or `key:`.
func parseEntry(body string, col int) (*Entry, *problem) {
	keyEnd, valStart := splitEntry(body)
	if keyEnd < 0 {
		return nil, errorAt(col, ErrSyntax, "expected `key: value` or a [header]")
	}
	keyText := trimKey(body[:keyEnd])
	if keyText == "" {
		return nil, errorAt(col, ErrSyntax, "entry has no key; expected `key: value`")
	}
	key, qcol, err := parseKey(keyText, col)
	if err != nil {
		return nil, err
	}
	e := &Entry{Key: key, Col: col, IfAbsent: qcol > 0}
	raw := body[valStart:]
	trimmed := strings.TrimLeft(raw, " \t")
	e.ValueCol = col + valStart + len(raw) - len(trimmed)
	v, verr := parseValue(trimmed, e.ValueCol)
	if verr != nil {
		return nil, verr
	}
	e.Value = v
	if e.IfAbsent && v.Required {
		return nil, errIfAbsentRequired(qcol)
	}
	if isDeleteKey(key) && !(v.Parts == nil && (v.Scalar == nil || v.Scalar == true)) {
		return nil, errorAt(e.ValueCol, ErrSyntax, "a delete entry takes no value; write `%s:`", keyText)
	}
	return e, nil
}

// checkKey places the operations of a key: insertions and DeleteItems
// end it; [delete] starts or ends it.
func checkKey(key Path) *problem {
	for i := range key {
		seg := &key[i]
		last := i == len(key)-1
		switch {
		case seg.isInsertion() && !last:
			return errorAt(seg.Col, ErrSyntax, "an insertion selector must end the key; build an item with several fields under an insertion header")
		case seg.Kind == DeleteItems && !last:
			return errorAt(seg.Col, ErrSyntax, "[delete=...] must end the key")
		case seg.Kind == Delete && i != 0 && !last:
			return errorAt(seg.Col, ErrSyntax, "[delete] stands at the start or at the end of a key")
		case seg.Kind == Delete && i == 0 && len(key) > 1 && key[len(key)-1].Kind == Delete:
			return errorAt(seg.Col, ErrSyntax, "[delete] appears twice in the key")
		case seg.Kind == Delete && i == 0 && key[len(key)-1].isInsertion():
			return errorAt(seg.Col, ErrSyntax, "an insertion cannot be deleted")
		}
	}
	return nil
}

func isDeleteKey(key Path) bool {
	last := key[len(key)-1].Kind
	return key[0].Kind == Delete || last == Delete || last == DeleteItems
}

func hasSeparator(body string) bool {
	_, valStart := splitEntry(body)
	return valStart >= 0
}

// splitEntry finds the separator of an entry: the first `: ` (or `:` and a
// tab) outside brackets, quoted selector values and escapes, or a `:` that
// ends the line. It returns
// where the key ends and the value starts, or -1, -1.
func splitEntry(body string) (int, int) {
	depth := 0
	quoted := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\':
			i++
		case c == '"' && depth > 0:
			quoted = !quoted
		case quoted:
		case c == '[':
			depth++
		case c == ']':
			if depth > 0 {
				depth--
			}
		case c == ':':
			if depth > 0 {
				continue
			}
			if i+1 == len(body) {
				return i, i + 1
			}
			if body[i+1] == ' ' || body[i+1] == '\t' {
				return i, i + 2
			}
		}
	}
	if depth > 0 {
		// an unclosed bracket in the key: split anyway, so that the key's
		// own error is reported
		if i := strings.Index(body, ": "); i >= 0 {
			return i, i + 2
		}
	}
	return -1, -1
}
