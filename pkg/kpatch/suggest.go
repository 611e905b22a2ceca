package kpatch

import (
	"slices"
	"strings"

	"github.com/hbollon/go-edlib"
)

// nearest returns the candidate a mistyped word most likely means: one
// equal to it but for case, else the one fewest edits away (a character
// added, removed or replaced, or two adjacent ones swapped) when that is
// at most max(2, len/3) edits and less than the word's length, the
// earlier candidate on a tie. ok is false when no candidate is that
// close.
func nearest(word string, candidates []string) (best string, ok bool) {
	if word == "" {
		return "", false
	}
	for _, c := range candidates {
		if c != word && strings.EqualFold(c, word) {
			return c, true
		}
	}
	limit := max(2, len(word)/3)
	if limit >= len(word) {
		limit = len(word) - 1
	}
	bestDist := limit + 1
	for _, c := range candidates {
		if c == word {
			continue
		}
		if d := edlib.OSADamerauLevenshteinDistance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best, bestDist <= limit
}

// didYouMean is the hint of the candidate nearest to word, " (did you
// mean X?)", or "" when none is close.
func didYouMean(word string, candidates []string) string {
	if best, ok := nearest(word, candidates); ok {
		return " (did you mean " + best + "?)"
	}
	return ""
}

// fieldNames are the fields of a struct node, or of the items of a list
// of structs, sorted; none for other nodes.
func fieldNames(n *typeNode) []string {
	if n != nil && n.kind == tList {
		n = n.elem
	}
	if n == nil || n.kind != tStruct {
		return nil
	}
	names := make([]string, 0, len(n.fields))
	for name := range n.fields {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// fieldHint is the hint of the field of n an unknown field name most
// likely means, or "".
func fieldHint(n *typeNode, name string) string {
	return didYouMean(name, fieldNames(n))
}

// withFieldHint adds to an unknown-field problem of a field step on n
// the field it most likely means.
func withFieldHint(err *problem, n *typeNode, st step) *problem {
	f, ok := st.(*fieldStep)
	if !ok || err.err != ErrUnknownField {
		return err
	}
	hint := fieldHint(n, f.name)
	if hint == "" {
		return err
	}
	q := *err
	q.msg += hint
	return &q
}

// shorthandHint is the hint of the field an unknown first segment of a
// path on kind ks most likely means: among the top level's fields, labels
// and annotations, then the fields of the spec chain, shallowest first.
func shorthandHint(ks *kindSchema, name string) string {
	candidates := append(fieldNames(ks.root), "annotations", "labels")
	for _, sp := range ks.specPaths {
		candidates = append(candidates, fieldNames(nodeAt(ks.root, sp))...)
	}
	return didYouMean(name, candidates)
}
