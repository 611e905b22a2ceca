package kpatch

// globMatchesPrefix reports whether the glob pattern (globMatch's: `*`
// any run, `?` one byte, `\x` x literally) matches some string that
// starts with prefix: whether a name glob can match the name the API
// server will make from a metadata.generateName, whatever it appends.
//
// Whatever of the pattern is left once prefix is read, some string
// matches it (a `*` matches the empty run, a `?` or a literal its own
// byte), so the question is whether some part of the pattern at its
// start matches prefix exactly. The first `*` of the pattern can take
// whatever of prefix is not read yet, so only the part before it counts:
// its literals and `?`s are read against prefix byte by byte, and the
// answer is yes when prefix or that part ends, at a `*` or with prefix
// read, and no at a byte that differs or when the pattern ends before
// prefix does. The cost is at most one step per byte of prefix, however
// many `*`s the pattern has.
func globMatchesPrefix(pattern, prefix string) bool {
	px := 0
	for sx := 0; sx < len(prefix); sx++ {
		if px == len(pattern) {
			return false
		}
		c := pattern[px]
		switch {
		case c == '*':
			return true
		case c == '?':
			px++
			continue
		case c == '\\' && px+1 < len(pattern):
			px++
			c = pattern[px]
		}
		if prefix[sx] != c {
			return false
		}
		px++
	}
	return true
}
