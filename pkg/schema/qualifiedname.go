package schema

import "strings"

// isQualifiedName reports, without allocating, whether k is a qualified
// name as the API server validates a label's key
// (validation.IsQualifiedName): a name of 1 to 63 characters, letters,
// digits, '-', '_' and '.', that starts and ends with a letter or a
// digit, after an optional prefix and '/', the prefix a DNS subdomain of
// at most 253 characters (lowercase letters, digits, '-' and '.' between
// labels that start and end with a letter or a digit). An annotation's key
// is the same with the prefix lowercased first (caseless). false says
// only that k is not one of those: the caller asks
// validation.IsQualifiedName, which says why, or takes a key that
// lowercases into one (FuzzQualifiedName holds both to it).
func isQualifiedName(k string, caseless bool) bool {
	name := k
	if prefix, rest, found := strings.Cut(k, "/"); found {
		if len(prefix) > 253 || !isDNSSubdomain(prefix, caseless) {
			return false
		}
		name = rest
	}
	if len(name) == 0 || len(name) > 63 || !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return false
	}
	for i := 1; i < len(name)-1; i++ {
		if c := name[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isDNSSubdomain reports whether s is labels joined by '.', each of
// lowercase letters (or any letters when caseless), digits and '-',
// starting and ending with a letter or a digit.
func isDNSSubdomain(s string, caseless bool) bool {
	for label := range strings.SplitSeq(s, ".") {
		if len(label) == 0 {
			return false
		}
		for i := range len(label) {
			c := label[i]
			if caseless && 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			edge := i == 0 || i == len(label)-1
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' && !edge) {
				return false
			}
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
