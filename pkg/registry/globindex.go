package registry

import (
	"slices"
	"strings"
)

// globIndex indexes targets by one of their patterns (a name or a
// namespace): a literal pattern by its value, a glob by its literal
// prefix, the part before its first `*` or `?`. A lookup of a value finds
// the targets whose pattern is the value or a prefix of it, in a map
// lookup per distinct prefix length.
type globIndex struct {
	exact    map[string][]indexedTarget
	prefixes map[string][]indexedTarget
	lengths  []int // the distinct prefix lengths, ascending
}

// add indexes it by pattern, a literal when literal is set, else a glob
// of the engine's (`*`, `?`, `\` escapes). It reports false, and indexes
// nothing, when the pattern says nothing a lookup could use: empty (any
// value), or a glob that starts with a wildcard.
func (g *globIndex) add(pattern string, literal bool, it indexedTarget) bool {
	key, isLiteral := pattern, true
	if !literal {
		key, isLiteral = globPrefix(pattern)
	}
	switch {
	case pattern == "" || key == "" && !isLiteral:
		return false
	case isLiteral:
		if g.exact == nil {
			g.exact = map[string][]indexedTarget{}
		}
		g.exact[key] = append(g.exact[key], it)
	default:
		if g.prefixes == nil {
			g.prefixes = map[string][]indexedTarget{}
		}
		g.prefixes[key] = append(g.prefixes[key], it)
		if i, ok := slices.BinarySearch(g.lengths, len(key)); !ok {
			g.lengths = slices.Insert(g.lengths, i, len(key))
		}
	}
	return true
}

// lookup appends the positions of the targets indexed under value (equal
// to it, or a prefix of it) that may address an object in namespace
// named name.
func (g *globIndex) lookup(value, namespace, name string, found []int32) []int32 {
	found = appendMatching(found, g.exact[value], namespace, name)
	for _, n := range g.lengths {
		if n > len(value) {
			break
		}
		found = appendMatching(found, g.prefixes[value[:n]], namespace, name)
	}
	return found
}

// globPrefix returns the literal prefix of a glob, unescaped, and whether
// that is the whole glob (it has no wildcard).
func globPrefix(glob string) (string, bool) {
	if !strings.ContainsAny(glob, `*?\`) {
		return glob, true
	}
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '*' || c == '?':
			return b.String(), false
		case c == '\\' && i+1 < len(glob):
			i++
			c = glob[i]
		}
		b.WriteByte(c)
	}
	return b.String(), true
}
