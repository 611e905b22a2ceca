package kpatch

import (
	"strconv"
	"strings"
)

// SegmentKind says what one segment of a path addresses or does.
type SegmentKind uint8

// The segment kinds. Field, Index, Select and All address values; the
// others change a list or remove what they address.
const (
	Field        SegmentKind = iota // a struct field or map key: name, [key.with.dots]
	Index                           // a list index (a key on a map): 0, [0]
	Select                          // the list items whose field equals a text: k=v, [k.path=v]
	All                             // every item of a list: *, [*]
	Append                          // [-]
	InsertBefore                    // [-N], [-k=v]
	InsertAfter                     // [+N], [+k=v], [+last]
	Delete                          // [delete]
	DeleteItems                     // [delete=N], [delete=k=v]
)

// Segment is one step of a path.
type Segment struct {
	Kind SegmentKind
	// Name is the field or key of a Field segment.
	Name string
	// Index is the index of Index, of an insertion by index and of
	// DeleteItems by index. Last marks [+last] and [-len].
	Index int
	Last  bool
	// Key and Value are the selector of Select, of an insertion by match
	// and of DeleteItems by match: the items whose field at path Key
	// equals Value as text.
	Key   []string
	Value string
	// ByMatch marks insertions and DeleteItems that use Key and Value.
	ByMatch bool
	// Bracketed records that the segment was written in brackets.
	Bracketed bool
	// Bare records a selector written without brackets
	// (containers.name=main) that prints back so: its key and value need
	// neither quotes nor escapes.
	Bare bool
	// Col is the segment's column on its line.
	Col int
}

// Path is a sequence of segments, from a header and a key.
type Path []Segment

// isInsertion reports whether the segment adds an item to a list.
func (s *Segment) isInsertion() bool {
	return s.Kind == Append || s.Kind == InsertBefore || s.Kind == InsertAfter
}

// parsePath reads a path such as `containers[name=main].ports.0`. col is the
// column of text's first byte. The first problem stops the scan.
//
// A key in brackets may hold variables (a templateKeyStep); any other
// segment may not.
func parsePath(text string, col int) (Path, *problem) {
	var p Path
	i := 0
	for i < len(text) {
		if len(p) > 0 {
			switch {
			case text[i] == '.':
				i++
				if i == len(text) {
					return nil, errorAt(col+i, ErrSyntax, "path ends with '.'; expected a segment after it")
				}
			case text[i] == '[':
			case len(p) == 1 && p[0].Kind == Delete:
				// [delete]labels.x: the rest of the key follows directly
			case text[i] == '?':
				return nil, errIfAbsentInPath(col+i, "")
			default:
				return nil, errorAt(col+i, ErrSyntax, "unexpected %q after ']'; expected '.' or '['", text[i])
			}
		}
		var seg Segment
		var n int
		var err *problem
		if text[i] == '[' {
			seg, n, err = parseBracket(text[i:], col+i)
		} else {
			seg, n, err = parseBare(text[i:], col+i)
		}
		if err != nil {
			return nil, err
		}
		if j := strings.Index(text[i:i+n], "${"); j >= 0 && !(seg.Kind == Field && seg.Bracketed) {
			return nil, errorAt(col+i+j, ErrSyntax, "variables are allowed in values and in keys in brackets ([example.com/${item.name}]), not in this segment")
		}
		p = append(p, seg)
		i += n
	}
	if len(p) == 0 {
		return nil, errorAt(col, ErrSyntax, "empty path")
	}
	return p, nil
}

// scanBare returns the length of a bare segment: up to an unescaped '.' or
// '[' or the end.
func scanBare(text string) int {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '.', '[':
			return i
		}
	}
	return len(text)
}

func parseBare(text string, col int) (Segment, int, *problem) {
	n := scanBare(text)
	raw := text[:n]
	if n < len(text) && text[n] == '[' && raw == "" {
		return Segment{}, 0, errorAt(col, ErrSyntax, "unexpected '['")
	}
	if raw == "" {
		return Segment{}, 0, errorAt(col, ErrSyntax, "empty segment; expected a field, index or selector")
	}
	if raw[len(raw)-1] == '\\' && (len(raw) < 2 || raw[len(raw)-2] != '\\') {
		return Segment{}, 0, errorAt(col+n-1, ErrSyntax, "'\\' at the end of a segment escapes nothing")
	}
	if strings.ContainsAny(raw[:1], "-+") && !strings.HasPrefix(raw, "\\") && looksLikeInsertion(raw) {
		return Segment{}, 0, errorAt(col, ErrSyntax, "insertion selector %q must be bracketed: [%s]", raw, raw)
	}
	if raw == "]" || raw[0] == ']' {
		return Segment{}, 0, errorAt(col, ErrSyntax, "unexpected ']'")
	}
	if j := indexUnescaped(raw, ']'); j >= 0 {
		return Segment{}, 0, errorAt(col+j, ErrSyntax, "unexpected ']' without '['")
	}
	if raw == "*" {
		return Segment{Kind: All, Col: col}, n, nil
	}
	if isDigits(raw) {
		idx, err := strconv.Atoi(raw)
		if err != nil {
			return Segment{}, 0, errorAt(col, ErrSyntax, "index %s is too large", raw)
		}
		return Segment{Kind: Index, Index: idx, Name: raw, Col: col}, n, nil
	}
	if eq := indexUnescaped(raw, '='); eq >= 0 {
		key, val := unescape(raw[:eq]), raw[eq+1:]
		if key == "" {
			return Segment{}, 0, errorAt(col, ErrSyntax, "selector %q has no key; expected key=value", raw)
		}
		if j := indexUnescaped(val, '='); j >= 0 {
			return Segment{}, 0, errorAt(col+eq+1+j, ErrSyntax, "selector value %q holds '='; bracket the selector: [%s]", val, raw)
		}
		v, err := selectorValue(val, col+eq+1)
		if err != nil {
			return Segment{}, 0, err
		}
		bare := plainSelectorText(key) && plainSelectorText(v)
		return Segment{Kind: Select, Key: []string{key}, Value: v, Bare: bare, Col: col}, n, nil
	}
	if raw[len(raw)-1] == '?' && !escaped(raw, len(raw)-1) {
		return Segment{}, 0, errIfAbsentInPath(col+n-1, raw[:len(raw)-1])
	}
	return Segment{Kind: Field, Name: unescape(raw), Col: col}, n, nil
}

// looksLikeInsertion reports whether a bare text is an insertion selector
// written without brackets: -, -3, +3, -k=v, +k=v.
func looksLikeInsertion(raw string) bool {
	rest := raw[1:]
	return rest == "" && raw[0] == '-' || isDigits(rest) || strings.Contains(rest, "=")
}

// scanBracket returns the length of a bracketed segment including both
// brackets, or -1 when it is not closed. Quotes and escapes are honoured.
func scanBracket(text string) int {
	quoted := false
	for i := 1; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == ']' && !quoted:
			return i + 1
		}
	}
	return -1
}

func parseBracket(text string, col int) (Segment, int, *problem) {
	n := scanBracket(text)
	if n < 0 {
		return Segment{}, 0, errorAt(col, ErrSyntax, "'[' is not closed; expected ']'")
	}
	raw := text[1 : n-1]
	seg, err := parseBracketBody(raw, col+1)
	if err != nil {
		return Segment{}, 0, err
	}
	seg.Bracketed = true
	seg.Col = col
	return seg, n, nil
}

func parseBracketBody(raw string, col int) (Segment, *problem) {
	switch raw {
	case "":
		return Segment{}, errorAt(col, ErrSyntax, "empty brackets; expected an index, key=value, a key or an operation")
	case "-":
		return Segment{Kind: Append}, nil
	case "*":
		return Segment{Kind: All}, nil
	case "delete":
		return Segment{Kind: Delete}, nil
	case "+last":
		return Segment{Kind: InsertAfter, Last: true}, nil
	case "-len":
		return Segment{Kind: InsertBefore, Last: true}, nil
	}
	if isDigits(raw) {
		idx, err := strconv.Atoi(raw)
		if err != nil {
			return Segment{}, errorAt(col, ErrSyntax, "index %s is too large", raw)
		}
		return Segment{Kind: Index, Index: idx, Name: raw}, nil
	}
	if rest, ok := strings.CutPrefix(raw, "delete="); ok {
		seg, err := parseItemSelector(rest, col+len("delete="), "[delete=SEL]")
		seg.Kind = DeleteItems
		return seg, err
	}
	if raw[0] == '-' || raw[0] == '+' {
		kind := InsertBefore
		if raw[0] == '+' {
			kind = InsertAfter
		}
		seg, err := parseItemSelector(raw[1:], col+1, "an insertion")
		seg.Kind = kind
		return seg, err
	}
	if eq := indexUnescaped(raw, '='); eq >= 0 {
		seg, err := parseSelector(raw, col)
		seg.Kind = Select
		seg.ByMatch = false
		return seg, err
	}
	if j := indexUnescaped(raw, '['); j >= 0 {
		return Segment{}, errorAt(col+j, ErrSyntax, "unexpected '[' inside brackets")
	}
	return Segment{Kind: Field, Name: unescape(raw)}, nil
}

// parseItemSelector reads the N or k=v of an insertion or a DeleteItems.
func parseItemSelector(raw string, col int, what string) (Segment, *problem) {
	if isDigits(raw) {
		idx, err := strconv.Atoi(raw)
		if err != nil {
			return Segment{}, errorAt(col, ErrSyntax, "index %s is too large", raw)
		}
		return Segment{Index: idx}, nil
	}
	if indexUnescaped(raw, '=') < 0 {
		return Segment{}, errorAt(col, ErrSyntax, "%s takes an index or key=value, not %q", what, raw)
	}
	return parseSelector(raw, col)
}

// parseSelector reads k=v where k may be a dotted path and v may be quoted.
func parseSelector(raw string, col int) (Segment, *problem) {
	eq := indexUnescaped(raw, '=')
	keyText, val := raw[:eq], raw[eq+1:]
	if keyText == "" {
		return Segment{}, errorAt(col, ErrSyntax, "selector %q has no key; expected key=value", raw)
	}
	var key []string
	for _, part := range splitUnescaped(keyText, '.') {
		if part == "" {
			return Segment{}, errorAt(col, ErrSyntax, "selector key %q has an empty segment", keyText)
		}
		key = append(key, unescape(part))
	}
	v, err := selectorValue(val, col+eq+1)
	if err != nil {
		return Segment{}, err
	}
	return Segment{Key: key, Value: v, ByMatch: true}, nil
}

// selectorValue unescapes a selector's value, or unquotes it when it is
// double-quoted.
func selectorValue(val string, col int) (string, *problem) {
	if strings.HasPrefix(val, `"`) {
		s, err := strconv.Unquote(val)
		if err != nil {
			return "", errorAt(col, ErrSyntax, "selector value %s is not a valid quoted string", val)
		}
		return s, nil
	}
	if j := indexUnescaped(val, '['); j >= 0 {
		return "", errorAt(col+j, ErrSyntax, "selector value %q holds '['; quote the value: \"...\"", val)
	}
	return unescape(val), nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// indexUnescaped returns the index of the first c not escaped by '\', or -1.
func indexUnescaped(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case c:
			return i
		}
	}
	return -1
}

// splitUnescaped splits s at every c not escaped by '\'. The parts keep
// their escapes.
func splitUnescaped(s string, c byte) []string {
	var parts []string
	for {
		i := indexUnescaped(s, c)
		if i < 0 {
			return append(parts, s)
		}
		parts = append(parts, s[:i])
		s = s[i+1:]
	}
}

// unescape removes the '\' of every escape: `\.` is '.', `\\` is '\'.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// String prints the path in the canonical form that parses back to it.
func (p Path) String() string {
	var b strings.Builder
	for i := range p {
		p[i].write(&b, i == 0)
	}
	return b.String()
}

func (s *Segment) write(b *strings.Builder, first bool) {
	sel := ""
	if s.ByMatch || s.Kind == Select {
		sel = selectorText(s.Key, s.Value)
	}
	switch s.Kind {
	case Field:
		writeField(b, s.Name, s.Bracketed, first)
	case Index:
		writeBare(b, s.Name, first) // the digits as written: on a map they are the key
	case Select:
		if s.Bare {
			writeBare(b, sel, first) // as written: containers.name=main
			return
		}
		b.WriteString("[" + sel + "]")
	case All:
		b.WriteString("[*]")
	case Append, InsertBefore, InsertAfter:
		b.WriteString(insertionText(s.Kind, s.Last, s.Index, sel))
	case Delete:
		b.WriteString("[delete]")
	case DeleteItems:
		b.WriteString(deleteItemsText(s.Index, sel))
	}
}

// isBracketWord reports whether text in brackets would mean something other
// than a key.
func isBracketWord(text string) bool {
	switch text {
	case "-", "*", "delete", "+last", "-len":
		return true
	}
	return isDigits(text) || text[0] == '-' || text[0] == '+'
}

func selectorText(key []string, value string) string {
	parts := make([]string, len(key))
	for i, k := range key {
		parts[i] = escapeBare(k)
	}
	if plainSelectorText(value) {
		return strings.Join(parts, ".") + "=" + value
	}
	return strings.Join(parts, ".") + "=" + strconv.Quote(value)
}

// plainSelectorText reports whether a selector's key or value reads back
// as itself unquoted and unescaped, bare or in brackets: not empty, and
// none of the bytes that end, quote, escape or comment a segment or an
// entry, nor a control byte, nor a last '?', which would end a key as set
// if absent.
func plainSelectorText(text string) bool {
	if text == "" || text[len(text)-1] == '?' {
		return false
	}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x20 || c == 0x7f || strings.IndexByte(`.[]=\":# '`, c) >= 0 {
			return false
		}
	}
	return true
}

// escapeBare escapes a name so that it reads back as one Field segment.
func escapeBare(name string) string { return escapeText(name, "") }

// escapeText escapes the bytes that end or change a bare segment, a leading
// byte that would make it an index, a wildcard or an insertion, a last
// '?' (set if absent), and the bytes of extra.
func escapeText(name, extra string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case strings.IndexByte(`.[]=\":# `+"\t", c) >= 0 || strings.IndexByte(extra, c) >= 0:
			b.WriteByte('\\')
		case i == 0 && (c == '-' || c == '+' || c == '*' || (c >= '0' && c <= '9')):
			b.WriteByte('\\')
		case c == '?' && i == len(name)-1: // else it would mark the entry set-if-absent
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}
