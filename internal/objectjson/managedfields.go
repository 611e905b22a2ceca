package objectjson

import "bytes"

// WithoutManagedFields returns the object raw without its
// metadata.managedFields, and true, for a decoding that nothing reading
// managedFields needs: the API server keeps them on every object it
// sends, about half of its bytes. The member is cut from a copy of raw.
// It returns raw itself and false when raw holds no such member, holds
// metadata or managedFields more than once, writes a key of the object
// or of its metadata with an escape, or is not the JSON object the walk
// expects. The walk does not validate what it skips: Decode validates
// the rest, and an admission request's object was decoded whole with its
// review. FuzzWithoutManagedFields holds Decode of the result to Decode
// of raw less the member.
func WithoutManagedFields(raw []byte) ([]byte, bool) {
	if !bytes.Contains(raw, managedFieldsKey) {
		return raw, false // no walk for a document that cannot hold it
	}
	w := fieldWalk{data: raw, pos: firstNonSpace(raw)}
	start, end, ok := w.managedFields()
	if !ok {
		return raw, false
	}
	out := make([]byte, 0, len(raw)-(end-start))
	return append(append(out, raw[:start]...), raw[end:]...), true
}

// managedFieldsKey is how the member's key is written, unescaped.
var managedFieldsKey = []byte(`"managedFields"`)

// fieldWalk finds a member of a JSON document by its brackets and quotes.
type fieldWalk struct {
	data []byte
	pos  int
}

// managedFields returns the bytes that leave the document without
// metadata.managedFields when cut, data[start:end]: the member and the
// comma before it, or, for the first member, the comma after it.
func (w *fieldWalk) managedFields() (start, end int, found bool) {
	if !w.at('{') {
		return 0, 0, false
	}
	w.pos++
	seenMetadata := false
	for first := true; ; first = false {
		key, _, more, ok := w.next(first)
		if !ok {
			return 0, 0, false
		}
		if !more {
			return start, end, found
		}
		if string(key) != "metadata" {
			if !w.value() {
				return 0, 0, false
			}
			continue
		}
		if seenMetadata || !w.at('{') {
			return 0, 0, false // twice, or not a map: Decode decides
		}
		seenMetadata = true
		w.pos++
		prevEnd := w.pos
		for firstField := true; ; firstField = false {
			key, keyStart, more, ok := w.next(firstField)
			isManagedFields := string(key) == "managedFields"
			if !ok || (isManagedFields && found) {
				return 0, 0, false
			}
			if !more {
				break
			}
			if !w.value() {
				return 0, 0, false
			}
			if isManagedFields {
				found = true
				start, end = prevEnd, w.pos
				if firstField {
					start = keyStart
					if after := w.pos + firstNonSpace(w.data[w.pos:]); w.atIndex(after, ',') {
						end = after + 1
					}
				}
			}
			prevEnd = w.pos
		}
	}
}

// skipSpace passes the white space the walk is at.
func (w *fieldWalk) skipSpace() { w.pos += firstNonSpace(w.data[w.pos:]) }

// at reports whether the walk is at c.
func (w *fieldWalk) at(c byte) bool { return w.atIndex(w.pos, c) }

func (w *fieldWalk) atIndex(i int, c byte) bool { return i < len(w.data) && w.data[i] == c }

// next moves to the next member of the object the walk is in, past the
// comma after the previous one unless first, and past its colon. It
// returns the member's key and where its quote is, or more false at the
// object's end, which it passes; ok is false for a key with an escape
// and for what is not an object's member.
func (w *fieldWalk) next(first bool) (key []byte, keyStart int, more, ok bool) {
	w.skipSpace()
	switch {
	case w.at('}'):
		w.pos++
		return nil, 0, false, true
	case !first && w.at(','):
		w.pos++
		w.skipSpace()
	case !first:
		return nil, 0, false, false
	}
	keyStart = w.pos
	if !w.at('"') {
		return nil, 0, false, false
	}
	s, e, escaped, ok := w.str()
	if !ok || escaped {
		return nil, 0, false, false
	}
	w.skipSpace()
	if !w.at(':') {
		return nil, 0, false, false
	}
	w.pos++
	w.skipSpace()
	return w.data[s:e], keyStart, true, true
}

// str passes the string the walk is at and returns where its content is.
func (w *fieldWalk) str() (start, end int, escaped, ok bool) {
	for i := w.pos + 1; i < len(w.data); i++ {
		switch w.data[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			start, end, w.pos = w.pos+1, i, i+1
			return start, end, escaped, true
		}
	}
	return 0, 0, false, false
}

// value passes the value the walk is at.
func (w *fieldWalk) value() bool {
	if w.pos >= len(w.data) {
		return false
	}
	switch w.data[w.pos] {
	case '"':
		_, _, _, ok := w.str()
		return ok
	case '{', '[':
		depth := 0
		for w.pos < len(w.data) {
			switch w.data[w.pos] {
			case '"':
				if _, _, _, ok := w.str(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					w.pos++
					return true
				}
			}
			w.pos++
		}
		return false
	}
	start := w.pos
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return w.pos > start
		}
		w.pos++
	}
	return false
}
