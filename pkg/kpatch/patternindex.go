package kpatch

// patternIndex holds targets by one of their patterns (the name, or the
// namespace) and finds those whose pattern may match a string in common
// with a given one. A literal l and a glob g share a string only if l
// starts with g's literal prefix and ends with its literal suffix; two
// globs only if one's prefix is a prefix of the other's, and one's suffix
// a suffix of the other's. So literals are kept in tries of their bytes,
// forwards and backwards, and globs in tries of their prefixes and of
// their reversed suffixes; a query walks its own prefix or suffix,
// whichever side holds fewer candidates, and the caller checks each
// candidate exactly (namesOverlap, namespacesOverlap). Only a glob
// query needs the literals' tries, and only a query the map and the
// globs' tries: each is built when first needed, so that an index that is
// never asked (the targets without a namespace, when no write has one)
// costs a slice entry per target, and one asked only of literals a map
// entry.
type patternIndex struct {
	byNamespace            bool            // the pattern is the target's namespace, else its name
	pending                []*targetWrites // targets not yet indexed
	literals               map[string][]*targetWrites
	unsorted               []keyedTarget // literals not yet in the tries
	litPrefix, litSuffix   affixNode     // literals by their bytes, forwards and backwards
	globPrefix, globSuffix affixNode     // globs by their prefix, and by their suffix backwards
}

// keyedTarget is a target and its literal pattern or glob.
type keyedTarget struct {
	q patternQuery
	t *targetWrites
}

// patternQuery is a pattern with its literal prefix and suffix.
type patternQuery struct {
	text           string
	literal        bool
	prefix, suffix string
}

func newPatternQuery(text string, literal bool) patternQuery {
	q := patternQuery{text: text, literal: literal, prefix: text, suffix: text}
	if !literal {
		q.prefix, q.suffix = globAffixes(text)
	}
	return q
}

// add indexes t.
func (x *patternIndex) add(t *targetWrites) { x.pending = append(x.pending, t) }

// pattern is t's pattern that the index holds.
func (x *patternIndex) pattern(t *Target) patternQuery {
	if x.byNamespace {
		return newPatternQuery(t.Namespace, !isGlob(t.Namespace))
	}
	return newPatternQuery(t.Name, t.NameLiteral)
}

// index indexes the pending targets: literals in the map (and, for the
// tries, in unsorted), globs in their tries.
func (x *patternIndex) index() {
	for _, t := range x.pending {
		k := keyedTarget{x.pattern(&t.target), t}
		if !k.q.literal {
			x.globPrefix.insert(k.q.prefix, false, k.t)
			x.globSuffix.insert(k.q.suffix, true, k.t)
			continue
		}
		if x.literals == nil {
			x.literals = map[string][]*targetWrites{}
		}
		x.literals[k.q.text] = append(x.literals[k.q.text], k.t)
		x.unsorted = append(x.unsorted, k)
	}
	x.pending = x.pending[:0]
}

// candidates calls f (when not nil) with each target whose pattern may
// match a string q matches, each once, and returns how many there are.
// Every target that shares a string with q is among them.
func (x *patternIndex) candidates(q patternQuery, f func(*targetWrites)) int {
	x.index()
	if q.literal {
		n := len(x.literals[q.text])
		for _, t := range x.literals[q.text] {
			visitIf(f, t)
		}
		return n + fewer(&x.globPrefix, &x.globSuffix, q.text, q.text, walkPath, f)
	}
	for _, k := range x.unsorted {
		x.litPrefix.insert(k.q.text, false, k.t)
		x.litSuffix.insert(k.q.text, true, k.t)
	}
	x.unsorted = x.unsorted[:0]
	n := fewer(&x.litPrefix, &x.litSuffix, q.prefix, q.suffix, walkBelow, f)
	return n + fewer(&x.globPrefix, &x.globSuffix, q.prefix, q.suffix, walkPathAndBelow, f)
}

// fewer walks the side, prefix or suffix, that holds fewer candidates,
// calling f with them, and returns their number.
func fewer(byPrefix, bySuffix *affixNode, prefix, suffix string, mode walkMode, f func(*targetWrites)) int {
	np, ns := byPrefix.walk(prefix, false, mode, nil), bySuffix.walk(suffix, true, mode, nil)
	if f == nil {
		return min(np, ns)
	}
	if np <= ns {
		return byPrefix.walk(prefix, false, mode, f)
	}
	return bySuffix.walk(suffix, true, mode, f)
}

func visitIf(f func(*targetWrites), t *targetWrites) {
	if f != nil {
		f(t)
	}
}

// affixNode is a node of a trie of byte strings (read backwards in a
// suffix trie): the targets whose key ends here, and those whose key
// ends here or below.
type affixNode struct {
	edges []affixEdge // few: a linear scan beats a map
	here  []*targetWrites
	below []*targetWrites
}

type affixEdge struct {
	c    byte
	node *affixNode
}

// child is the node under the edge c, or nil.
func (n *affixNode) child(c byte) *affixNode {
	for _, e := range n.edges {
		if e.c == c {
			return e.node
		}
	}
	return nil
}

// walkMode says which entries a walk along a key visits.
type walkMode int

const (
	walkPath         walkMode = iota // keys that are prefixes of the key, the key included
	walkBelow                        // keys that the key is a prefix of, the key included
	walkPathAndBelow                 // both
)

func keyByte(key string, i int, backwards bool) byte {
	if backwards {
		return key[len(key)-1-i]
	}
	return key[i]
}

// insert adds t under key. Each node on the way lists it in below, so
// that a walk visits the entries under a node without visiting its nodes.
func (n *affixNode) insert(key string, backwards bool, t *targetWrites) {
	for i := 0; ; i++ {
		n.below = append(n.below, t)
		if i == len(key) {
			n.here = append(n.here, t)
			return
		}
		c := keyByte(key, i, backwards)
		child := n.child(c)
		if child == nil {
			child = &affixNode{}
			n.edges = append(n.edges, affixEdge{c, child})
		}
		n = child
	}
}

// walk follows key from n, calls f (when not nil) with the entries mode
// asks for, and returns their number. Its cost is the key's length plus
// the entries it visits.
func (n *affixNode) walk(key string, backwards bool, mode walkMode, f func(*targetWrites)) int {
	count := 0
	visit := func(ts []*targetWrites) {
		count += len(ts)
		if f != nil {
			for _, t := range ts {
				f(t)
			}
		}
	}
	for i := 0; n != nil; i++ {
		if i == len(key) {
			if mode == walkPath {
				visit(n.here)
			} else {
				visit(n.below)
			}
			break
		}
		if mode != walkBelow {
			visit(n.here)
		}
		n = n.child(keyByte(key, i, backwards))
	}
	return count
}
