package kpatch

import (
	"strings"

	"github.com/distribution/reference"
)

// The grammar of image references (github.com/distribution/reference),
// checked by hand rather than by that package's regular expressions: an
// image part is set on every object a file patches.
//
//	reference := name [ ":" tag ] [ "@" digest ]
//	name      := [ domain "/" ] path-component [ "/" path-component ]*
//	domain    := host [ ":" port ]; host := domain-name | "[" ipv6 "]"

// nameTotalLengthMax is the longest name reference.Parse accepts.
const nameTotalLengthMax = 255

// parseImage checks a whole image reference as reference.Parse does,
// returning its error. The references it recognizes by hand (all but
// unusual digests) are never parsed with regular expressions.
func parseImage(s string) error {
	if isSimpleReference(s) {
		return nil
	}
	_, err := reference.Parse(s)
	return err
}

// isSimpleReference reports whether s is a reference reference.Parse
// accepts, with a sha256 digest if any; false can also be a reference
// it accepts (another digest algorithm).
func isSimpleReference(s string) bool {
	name := s
	if i := strings.IndexByte(s, '@'); i >= 0 {
		name = s[:i]
		if !isSHA256Digest(s[i+1:]) {
			return false
		}
	}
	if i := strings.LastIndexByte(name, ':'); i >= 0 && !strings.Contains(name[i:], "/") {
		if !isTag(name[i+1:]) {
			return false
		}
		name = name[:i]
	}
	return len(name) <= nameTotalLengthMax && isName(name)
}

// isRepository reports whether s is a name alone, without tag or digest,
// as image.repository takes it.
func isRepository(s string) bool {
	if strings.IndexByte(s, '@') >= 0 {
		return false
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 && !strings.Contains(s[i:], "/") {
		return false
	}
	return len(s) <= nameTotalLengthMax && isName(s)
}

// isName reports whether s is [domain "/"] path-component ["/" path-component]*.
func isName(s string) bool {
	first, rest, more := strings.Cut(s, "/")
	if !isPathComponent(first) && (!more || !isDomain(first)) {
		return false
	}
	for more {
		var c string
		c, rest, more = strings.Cut(rest, "/")
		if !isPathComponent(c) {
			return false
		}
	}
	return true
}

// isPathComponent reports whether s is [a-z0-9]+ (separator [a-z0-9]+)*,
// a separator being ".", "_", "__" or a run of "-".
func isPathComponent(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); {
		if isLowerAlnum(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isLowerAlnum(s[j]) {
			j++
		}
		switch sep := s[i:j]; {
		case sep == "." || sep == "_" || sep == "__":
		case strings.Trim(sep, "-") == "":
		default:
			return false
		}
		i = j
	}
	return true
}

// isDomain reports whether s is a host (domain name or bracketed IPv6
// address) with an optional numeric port.
func isDomain(s string) bool {
	host := s
	if i := strings.LastIndexByte(s, ':'); i >= 0 && !strings.Contains(s[i:], "]") {
		host = s[:i]
		if !isDigits(s[i+1:]) {
			return false
		}
	}
	if strings.HasPrefix(host, "[") {
		inner, ok := strings.CutSuffix(host[1:], "]")
		return ok && inner != "" && strings.Trim(inner, "0123456789abcdefABCDEF:") == ""
	}
	for {
		c, rest, more := strings.Cut(host, ".")
		if !isDomainComponent(c) {
			return false
		}
		if !more {
			return true
		}
		host = rest
	}
}

// isDomainComponent reports whether s is letters, digits and '-', not at
// either end.
func isDomainComponent(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := range len(s) {
		if !isAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// isTag reports whether s is [\w][\w.-]{0,127}.
func isTag(s string) bool {
	if s == "" || len(s) > 128 || !isWordByte(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isWordByte(s[i]) && s[i] != '.' && s[i] != '-' {
			return false
		}
	}
	return true
}

// isDigestText reports whether s is a digest as the grammar writes it:
// algorithm components [A-Za-z][A-Za-z0-9]* joined by one of "-_+.",
// ':', and at least 32 hexadecimal digits.
func isDigestText(s string) bool {
	alg, hex, ok := strings.Cut(s, ":")
	if !ok || len(hex) < 32 || !isHex(hex) {
		return false
	}
	start := 0
	for i := 0; i <= len(alg); i++ {
		if i < len(alg) && !strings.ContainsRune("-_+.", rune(alg[i])) {
			continue
		}
		c := alg[start:i]
		if c == "" || !isLetter(c[0]) {
			return false
		}
		for j := range len(c) {
			if !isAlnum(c[j]) {
				return false
			}
		}
		start = i + 1
	}
	return true
}

// isSHA256Digest reports whether s is sha256: and 64 lower-case
// hexadecimal digits, the digest reference.Parse always accepts.
func isSHA256Digest(s string) bool {
	hex, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for i := range len(hex) {
		if c := hex[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

func isHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
