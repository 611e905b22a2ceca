package objectjson

import (
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Decode decodes a JSON object as the API server's decoder
// (k8s.io/apimachinery/pkg/util/json: sigs.k8s.io/json, integers kept)
// does: objects as map[string]any, lists as []any, an integer that fits
// as an int64, any other number as a float64 (one that does not fit a
// float64 is an error), strings as encoding/json decodes them (invalid
// UTF-8 and lone surrogates replaced by U+FFFD), the last of duplicate
// keys kept, at most 10,000 levels deep. A JSON value that is not an
// object (null included) is ErrNotAnObject or a *DecodeError.
//
// It reads the document twice: objectScan checks it and counts its
// members, then objectBuilder makes each map at its size and takes the
// lists' elements from one array, so that a document costs its maps, one
// copy of its bytes, that array, and its strings, numbers and lists
// boxed (any allocates the copy each holds).
// The maps come from maps (Maps), or are made when it is nil.
// TestDecodeObjectMatchesAPIServer and FuzzDecodeObject hold it to the
// API server's decoder.
func Decode(raw []byte, maps *Maps) (map[string]any, error) {
	sizes := scanSizes.Get().(*[]int32)
	defer func() {
		if cap(*sizes) <= 1<<16 {
			scanSizes.Put(sizes)
		}
	}()
	scan := objectScan{data: raw, sizes: (*sizes)[:0]}
	err := scan.document()
	*sizes = scan.sizes[:0]
	if err != nil {
		return nil, err
	}
	if raw[firstNonSpace(raw)] != '{' {
		return nil, ErrNotAnObject
	}
	b := newObjectBuilder(&scan, raw)
	b.maps = maps
	b.pos = firstNonSpace(raw)
	return b.object()
}

// scanSizes keeps the first pass's member counts between requests.
var scanSizes = sync.Pool{New: func() any { return new([]int32) }}

func firstNonSpace(raw []byte) int {
	i := 0
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// objectBuilder is the second pass of the object decoder, over a
// document objectScan accepted. Lists are sub-slices of one array of
// elements, sized by the first pass, each with its capacity cut to its
// length, so that an append to one copies it instead of writing into the
// next.
type objectBuilder struct {
	data  string // the one copy of the document; strings are sliced from it
	pos   int
	sizes []int32
	maps  *Maps
	items []any
}

func newObjectBuilder(scan *objectScan, raw []byte) objectBuilder {
	return objectBuilder{
		data:  string(raw),
		sizes: scan.sizes,
		items: make([]any, scan.items),
	}
}

func (b *objectBuilder) skipSpace() {
	for b.pos < len(b.data) {
		switch b.data[b.pos] {
		case ' ', '\t', '\n', '\r':
			b.pos++
		default:
			return
		}
	}
}

func (b *objectBuilder) value() (any, error) {
	b.skipSpace()
	switch c := b.data[b.pos]; c {
	case '{':
		return b.object()
	case '[':
		return b.list()
	case '"':
		s, err := b.str()
		if err != nil {
			return nil, err
		}
		return s, nil
	case 't':
		b.pos += len("true")
		return true, nil
	case 'f':
		b.pos += len("false")
		return false, nil
	case 'n':
		b.pos += len("null")
		return nil, nil
	}
	return b.number()
}

// object builds an object from its opening brace.
func (b *objectBuilder) object() (map[string]any, error) {
	m := b.maps.Get(int(b.sizes[0]))
	b.sizes = b.sizes[1:]
	b.pos++
	b.skipSpace()
	if b.data[b.pos] == '}' {
		b.pos++
		return m, nil
	}
	for {
		b.skipSpace()
		k, err := b.str()
		if err != nil {
			return nil, err
		}
		b.skipSpace()
		b.pos++ // ':'
		v, err := b.value()
		if err != nil {
			return nil, err
		}
		m[k] = v
		b.skipSpace()
		b.pos++
		if b.data[b.pos-1] == '}' {
			return m, nil
		}
	}
}

// list builds a list from its opening bracket, boxed.
func (b *objectBuilder) list() (any, error) {
	n := int(b.sizes[0])
	b.sizes = b.sizes[1:]
	l := b.items[:n:n]
	b.items = b.items[n:]
	b.pos++
	if n == 0 {
		l = []any{} // not nil, as encoding/json decodes []
		b.skipSpace()
	}
	for i := range l {
		v, err := b.value()
		if err != nil {
			return nil, err
		}
		l[i] = v
		b.skipSpace()
		b.pos++ // ',' or ']'
	}
	if n == 0 {
		b.pos++ // ']'
	}
	return l, nil
}

// str decodes a string from its opening quote: sliced from the document
// when it decodes to itself, else unquoted by encoding/json.
func (b *objectBuilder) str() (string, error) {
	start := b.pos + 1
	end, escaped, ascii := start, false, true
	for c := b.data[end]; c != '"'; c = b.data[end] {
		switch {
		case c == '\\':
			escaped = true
			end++
		case c >= utf8.RuneSelf:
			ascii = false
		}
		end++
	}
	b.pos = end + 1
	lit := b.data[start:end]
	if !escaped && (ascii || utf8.ValidString(lit)) {
		return lit, nil
	}
	var s string
	if err := json.Unmarshal([]byte(b.data[start-1:end+1]), &s); err != nil {
		return "", &DecodeError{Offset: start - 1, Msg: err.Error()}
	}
	return s, nil
}

// number decodes a number as the API server does: an int64 when it is
// an integer that fits, else a float64.
func (b *objectBuilder) number() (any, error) {
	start, integer := b.pos, true
	for ; b.pos < len(b.data); b.pos++ {
		c := b.data[b.pos]
		if c == '.' || c == 'e' || c == 'E' {
			integer = false
		} else if c != '-' && c != '+' && (c < '0' || c > '9') {
			break
		}
	}
	lit := b.data[start:b.pos]
	if integer {
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return nil, &DecodeError{Offset: start, Msg: "number " + lit + " does not fit a float64"}
	}
	return f, nil
}
