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
// It reads the document twice: objectScan checks it, counts its
// members and notes where its strings and numbers are, then
// objectBuilder boxes those strings, numbers and the lists' headers
// boxChunk at a time (boxes), makes each map at its size and takes the
// lists' elements from one array, so that a document costs its maps, one
// copy of its bytes, that array, and one allocation per boxChunk strings,
// numbers or lists.
// The maps come from maps (Maps), or are made when it is nil.
// TestDecodeObjectMatchesAPIServer and FuzzDecodeObject hold it to the
// API server's decoder.
func Decode(raw []byte, maps *Maps) (map[string]any, error) {
	kept := decodeScratches.Get().(*decodeScratch)
	defer kept.put()
	scan := objectScan{data: raw, sizes: kept.sizes[:0], lists: kept.lists[:0], scalars: kept.scalars[:0]}
	err := scan.document()
	kept.sizes, kept.lists, kept.scalars = scan.sizes, scan.lists, scan.scalars
	if err != nil {
		return nil, err
	}
	if raw[firstNonSpace(raw)] != '{' {
		return nil, ErrNotAnObject
	}
	b := newObjectBuilder(&scan, raw)
	b.maps = maps
	b.pos = firstNonSpace(raw)
	if err := b.box(kept); err != nil {
		return nil, err
	}
	return b.object()
}

// decodeScratch is what Decode needs only while it runs, kept between
// requests: the first pass's counts and places, and the boxed values
// before the second pass puts them into the object.
type decodeScratch struct {
	sizes, lists []int32
	scalars      []int
	boxed        []any
}

var decodeScratches = sync.Pool{New: func() any { return new(decodeScratch) }}

// put empties the scratch (it holds no value of the object) and keeps it
// unless one document made it big.
func (k *decodeScratch) put() {
	clear(k.boxed)
	if cap(k.sizes)+cap(k.lists) > 1<<16 || cap(k.scalars) > 1<<17 || cap(k.boxed) > 1<<16 {
		return
	}
	k.boxed = k.boxed[:0]
	decodeScratches.Put(k)
}

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
	data    string // the one copy of the document; strings are sliced from it
	pos     int
	sizes   []int32
	lists   []int32
	scalars []int
	maps    *Maps
	items   []any
	// boxedScalars are the strings and numbers that are values, and
	// boxedLists the lists, in the order of the document, boxed by box;
	// the builder takes them from the front.
	boxedScalars, boxedLists []any
}

func newObjectBuilder(scan *objectScan, raw []byte) objectBuilder {
	return objectBuilder{
		data:    string(raw),
		sizes:   scan.sizes,
		lists:   scan.lists,
		scalars: scan.scalars,
		items:   make([]any, scan.items),
	}
}

// box boxes the document's strings and numbers that are values, and its
// lists, into kept.boxed, boxChunk of a type at a time, before the
// second pass puts them into maps and lists. A list is boxed as its
// share of the elements' array, which the second pass then fills.
func (b *objectBuilder) box(kept *decodeScratch) error {
	nScalars := len(b.scalars) / 2
	kept.boxed = slicesGrow(kept.boxed, nScalars+len(b.lists))
	out := kept.boxed
	var (
		strs   boxes[string]
		ints   boxes[int64]
		floats boxes[float64]
		lists  boxes[[]any]
	)
	for slot := range nScalars {
		start, end := b.scalars[2*slot], b.scalars[2*slot+1]
		if b.data[start] == '"' {
			s, err := b.strAt(start, end)
			switch {
			case err != nil:
				return err
			case s == "":
				out[slot] = "" // Go boxes an empty string without allocating
			default:
				strs.add(s, slot, out)
			}
			continue
		}
		i, f, integer, err := b.numberAt(start, end)
		switch {
		case err != nil:
			return err
		case !integer:
			floats.add(f, slot, out)
		case i >= 0 && i < 256:
			out[slot] = i // Go boxes these without allocating
		default:
			ints.add(i, slot, out)
		}
	}
	items := b.items
	for i, n := range b.lists {
		lists.add(items[:n:n], nScalars+i, out)
		items = items[n:]
	}
	strs.flush(out)
	ints.flush(out)
	floats.flush(out)
	lists.flush(out)
	b.boxedScalars, b.boxedLists = out[:nScalars], out[nScalars:]
	return nil
}

// slicesGrow is s emptied and made n long.
func slicesGrow(s []any, n int) []any {
	if cap(s) < n {
		return make([]any, n)
	}
	return s[:n]
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
	// a string or a number, boxed by box
	b.pos = b.scalars[1]
	b.scalars = b.scalars[2:]
	v := b.boxedScalars[0]
	b.boxedScalars = b.boxedScalars[1:]
	return v, nil
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

// list builds a list from its opening bracket: the list box boxed, its
// elements filled in.
func (b *objectBuilder) list() (any, error) {
	boxed := b.boxedLists[0]
	b.boxedLists = b.boxedLists[1:]
	l := boxed.([]any)
	b.pos++
	if len(l) == 0 {
		b.skipSpace()
		b.pos++ // ']'
		return boxed, nil
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
	return boxed, nil
}

// str decodes a key from its opening quote.
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
	return b.unquote(start-1, end+1, escaped, ascii)
}

// strAt decodes the string data[start:end], quotes included.
func (b *objectBuilder) strAt(start, end int) (string, error) {
	escaped, ascii := false, true
	for i := start + 1; i < end-1; i++ {
		switch c := b.data[i]; {
		case c == '\\':
			escaped = true
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return b.unquote(start, end, escaped, ascii)
}

// unquote decodes the string data[start:end], quotes included: sliced
// from the document when it decodes to itself, unescaped when its
// escapes need no repair (unescape), else unquoted by encoding/json.
func (b *objectBuilder) unquote(start, end int, escaped, ascii bool) (string, error) {
	lit := b.data[start+1 : end-1]
	if !escaped && (ascii || utf8.ValidString(lit)) {
		return lit, nil
	}
	if escaped {
		if s, ok := unescape(lit); ok {
			return s, nil
		}
	}
	var s string
	if err := json.Unmarshal([]byte(b.data[start:end]), &s); err != nil {
		return "", &DecodeError{Offset: start, Msg: err.Error()}
	}
	return s, nil
}

// numberAt decodes the number data[start:end] as the API server does:
// an int64 when it is an integer that fits (integer set), else a
// float64.
func (b *objectBuilder) numberAt(start, end int) (i int64, f float64, integer bool, err error) {
	lit := b.data[start:end]
	integer = true
	for j := range len(lit) {
		if c := lit[j]; c == '.' || c == 'e' || c == 'E' {
			integer = false
			break
		}
	}
	if integer {
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return i, 0, true, nil
		}
	}
	f, err = strconv.ParseFloat(lit, 64)
	if err != nil {
		return 0, 0, false, &DecodeError{Offset: start, Msg: "number " + lit + " does not fit a float64"}
	}
	return 0, f, false, nil
}
