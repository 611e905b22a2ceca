package objectjson

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// unescape decodes lit, the content of a JSON string that holds escapes
// (its quotes left out), as encoding/json does, for the strings that need
// none of its repairs: valid UTF-8 and \u escapes that are not lone
// surrogates. It reports false for any other, which unquote leaves to
// encoding/json. Every object the API server sends holds such strings:
// the keys of its managedFields (k:{"name":"app"}) escape their quotes.
// FuzzUnescape holds it to encoding/json.
func unescape(lit string) (string, bool) {
	var b strings.Builder
	b.Grow(len(lit))
	for i := 0; i < len(lit); {
		c := lit[i]
		if c != '\\' {
			if c < utf8.RuneSelf {
				b.WriteByte(c)
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(lit[i:])
			if r == utf8.RuneError && size == 1 {
				return "", false // invalid UTF-8: replaced by encoding/json
			}
			b.WriteString(lit[i : i+size])
			i += size
			continue
		}
		if i+1 == len(lit) {
			return "", false
		}
		switch e := lit[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(lit, i+2)
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				// a pair is two escapes; anything else is repaired by
				// encoding/json
				if i+1 >= len(lit) || lit[i] != '\\' || lit[i+1] != 'u' {
					return "", false
				}
				low, ok := hex4(lit, i+2)
				if r = utf16.DecodeRune(r, low); !ok || r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			b.WriteRune(r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return b.String(), true
}

// hex4 reads the four hex digits of a \u escape at lit[at:].
func hex4(lit string, at int) (rune, bool) {
	if at+4 > len(lit) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(lit[at : at+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
