package kpatch

import "strings"

// globToken is one element of a name or namespace glob: a literal byte,
// `?` (any one byte) or `*` (any run of bytes), as globMatch reads them.
type globToken struct {
	kind byte // 0: the literal lit, '?' or '*'
	lit  byte
}

// appendGlobTokens appends the tokens of pattern to buf: `\x` is x
// literally, and a `\` that ends the pattern is itself.
func appendGlobTokens(buf []globToken, pattern string) []globToken {
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '*' || c == '?':
			buf = append(buf, globToken{kind: c})
		case c == '\\' && i+1 < len(pattern):
			i++
			buf = append(buf, globToken{lit: pattern[i]})
		default:
			buf = append(buf, globToken{lit: c})
		}
	}
	return buf
}

// globsIntersect reports whether some string matches both globs. It walks
// the pairs (i, j) of positions in a's and b's tokens that a common
// prefix of a string can reach, row by row: every byte of the string
// moves i or j forward (two stars never both stay), so a row only feeds
// later columns of itself and the next row.
func globsIntersect(a, b string) bool {
	if a == b {
		return true // every pattern matches some string
	}
	var bufA, bufB [64]globToken
	ta, tb := appendGlobTokens(bufA[:0], a), appendGlobTokens(bufB[:0], b)
	var rows [2][65]bool
	var cur, next []bool
	if len(tb) < len(rows[0]) {
		cur, next = rows[0][:len(tb)+1], rows[1][:len(tb)+1]
	} else {
		cur, next = make([]bool, len(tb)+1), make([]bool, len(tb)+1)
	}
	cur[0] = true
	for i := 0; ; i++ {
		for j := 0; j < len(tb); j++ { // moves within the row
			if cur[j] && (tb[j].kind == '*' || i < len(ta) && ta[i].kind == '*') {
				cur[j+1] = true
			}
		}
		if i == len(ta) {
			return cur[len(tb)]
		}
		clear(next)
		for j, ok := range cur {
			if !ok {
				continue
			}
			if ta[i].kind == '*' || j < len(tb) && tb[j].kind == '*' {
				next[j] = true // a's star matches nothing more, or b's star eats a's byte
			} else if j < len(tb) && sameGlobByte(ta[i], tb[j]) {
				next[j+1] = true
			}
		}
		cur, next = next, cur
	}
}

// sameGlobByte reports whether a byte may match two tokens that are not stars.
func sameGlobByte(x, y globToken) bool {
	return x.kind == '?' || y.kind == '?' || x.lit == y.lit
}

// namesOverlap reports whether some object name matches both name
// patterns, each a literal name or a glob.
func namesOverlap(a string, aLiteral bool, b string, bLiteral bool) bool {
	switch {
	case aLiteral && bLiteral:
		return a == b
	case aLiteral:
		return globMatch(b, a)
	case bLiteral:
		return globMatch(a, b)
	}
	return globsIntersect(a, b)
}

// namespacesOverlap reports whether some namespace matches both
// namespace patterns; "" matches any. A namespace pattern has no escapes:
// one without `*` or `?` is a literal.
func namespacesOverlap(a, b string) bool {
	return a == "" || b == "" || globsIntersect(a, b)
}

// globAffixes are the literal bytes a glob's matches start and end with:
// those before its first `*` or `?` and those after its last, unescaped.
// A pattern without `*` or `?` is its own prefix and suffix.
func globAffixes(pattern string) (prefix, suffix string) {
	if !strings.Contains(pattern, `\`) {
		first := strings.IndexAny(pattern, "*?")
		if first < 0 {
			return pattern, pattern
		}
		return pattern[:first], pattern[strings.LastIndexAny(pattern, "*?")+1:]
	}
	toks := appendGlobTokens(nil, pattern)
	first, last := len(toks), len(toks)
	for i, t := range toks {
		if t.kind != 0 {
			first = min(first, i)
			last = i
		}
	}
	if first == len(toks) {
		last = -1
	}
	return tokensText(toks[:first]), tokensText(toks[last+1:])
}

// tokensText is the bytes of literal tokens.
func tokensText(toks []globToken) string {
	b := make([]byte, len(toks))
	for i, t := range toks {
		b[i] = t.lit
	}
	return string(b)
}
