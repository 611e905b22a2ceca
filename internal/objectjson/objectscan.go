package objectjson

import (
	"fmt"
)

// maxDecodeDepth is the deepest nesting of objects and lists the decoder
// accepts, encoding/json's (and so the API server's) limit.
const maxDecodeDepth = 10000

// DecodeError is a JSON document the object decoder refuses: where
// (a byte offset into the document) and what.
type DecodeError struct {
	Offset int
	Msg    string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.Msg)
}

// objectScan is the first pass of the object decoder: it checks the
// document's syntax and counts what the second pass allocates, so that
// every map is made at its size, the lists' elements come from one
// array, and the values that Go boxes one by one are boxed together
// (boxes).
type objectScan struct {
	data  []byte
	pos   int
	depth int
	// sizes holds the members of each object, lists those of each list,
	// in the order they open.
	sizes, lists []int32
	items        int // list elements, all lists together
	// scalars holds where each string and number that is not a key
	// starts and ends, in the order of the document.
	scalars []int
}

func (s *objectScan) fail(format string, args ...any) error {
	return &DecodeError{Offset: s.pos, Msg: fmt.Sprintf(format, args...)}
}

func (s *objectScan) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek is the next byte after white space, or 0 at the end.
func (s *objectScan) peek() byte {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// document scans a whole document: one value and white space.
func (s *objectScan) document() error {
	if err := s.value(); err != nil {
		return err
	}
	if s.peek() != 0 || s.pos < len(s.data) {
		return s.fail("invalid character %q after the top-level value", s.data[s.pos])
	}
	return nil
}

func (s *objectScan) value() error {
	switch c := s.peek(); {
	case c == '{':
		return s.container('}', true)
	case c == '[':
		return s.container(']', false)
	case c == '"':
		start := s.pos
		if err := s.str(); err != nil {
			return err
		}
		s.scalars = append(s.scalars, start, s.pos)
		return nil
	case c == '-' || '0' <= c && c <= '9':
		start := s.pos
		if err := s.number(); err != nil {
			return err
		}
		s.scalars = append(s.scalars, start, s.pos)
		return nil
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == 0 && s.pos >= len(s.data):
		return s.fail("unexpected end of JSON input")
	default:
		return s.fail("invalid character %q looking for the beginning of a value", c)
	}
}

// container scans an object (members) or a list, from its opening byte.
func (s *objectScan) container(end byte, members bool) error {
	if s.depth++; s.depth > maxDecodeDepth {
		return s.fail("exceeded max depth")
	}
	sizes := &s.lists
	if members {
		sizes = &s.sizes
	}
	at := len(*sizes)
	*sizes = append(*sizes, 0)
	s.pos++
	if s.peek() == end {
		s.pos++
		s.depth--
		return nil
	}
	var n int32
	for {
		if err := s.member(members); err != nil {
			return err
		}
		n++
		switch c := s.peek(); c {
		case ',':
			s.pos++
		case end:
			s.pos++
			s.depth--
			(*sizes)[at] = n
			if !members {
				s.items += int(n)
			}
			return nil
		default:
			if c == 0 && s.pos >= len(s.data) {
				return s.fail("unexpected end of JSON input")
			}
			return s.fail("invalid character %q after an element, expecting ',' or %q", c, end)
		}
	}
}

// member scans an object's key and value, or a list's element.
func (s *objectScan) member(members bool) error {
	if !members {
		return s.value()
	}
	if c := s.peek(); c != '"' {
		if c == 0 && s.pos >= len(s.data) {
			return s.fail("unexpected end of JSON input")
		}
		return s.fail("invalid character %q looking for the beginning of an object key", c)
	}
	if err := s.str(); err != nil {
		return err
	}
	if c := s.peek(); c != ':' {
		return s.fail("invalid character %q after an object key, expecting ':'", c)
	}
	s.pos++
	return s.value()
}

func (s *objectScan) literal(word string) error {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.fail("invalid literal, expecting %q", word)
	}
	s.pos += len(word)
	return nil
}

// str scans a string from its opening quote: escapes are valid, no
// control character; any other byte is accepted (invalid UTF-8 is
// replaced when decoded, as encoding/json does).
func (s *objectScan) str() error {
	s.pos++
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return nil
		case c == '\\':
			if err := s.escape(); err != nil {
				return err
			}
		case c < 0x20:
			return s.fail("invalid character %q in a string literal", c)
		default:
			s.pos++
		}
	}
	return s.fail("unexpected end of JSON input")
}

func (s *objectScan) escape() error {
	s.pos++
	if s.pos >= len(s.data) {
		return s.fail("unexpected end of JSON input")
	}
	switch s.data[s.pos] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.pos++
		return nil
	case 'u':
		s.pos++
		for i := 0; i < 4; i++ {
			if s.pos >= len(s.data) || !isHex(s.data[s.pos]) {
				return s.fail("invalid character in a \\u escape")
			}
			s.pos++
		}
		return nil
	}
	return s.fail("invalid escape %q in a string literal", s.data[s.pos])
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *objectScan) number() error {
	if s.data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.data) && s.data[s.pos] == '0':
		s.pos++
	case s.digits() == 0:
		return s.fail("invalid number, expecting a digit")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return s.fail("invalid number, expecting a digit after the decimal point")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return s.fail("invalid number, expecting a digit in the exponent")
		}
	}
	return nil
}

func (s *objectScan) digits() int {
	start := s.pos
	for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos - start
}
