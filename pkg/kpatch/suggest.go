package kpatch

import (
	"fmt"
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
	limit := min(max(2, len(word)/3), len(word)-1)
	var counts [256]uint8
	for i := 0; i < len(word); i++ {
		counts[word[i]]++ // a word of 256 equal bytes suggests nothing
	}
	bestDist := limit + 1
	for _, c := range candidates {
		if c == word || abs(len(c)-len(word)) >= bestDist || bagDistance(&counts, len(word), c) >= bestDist {
			continue
		}
		if d := edlib.OSADamerauLevenshteinDistance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best, bestDist <= limit
}

// bagDistance is a lower bound of the edits between a word (its byte
// counts and length) and c: the bytes of one that the other lacks, the
// larger count of the two; an edit changes each by at most one.
func bagDistance(counts *[256]uint8, n int, c string) int {
	rest := *counts
	common := 0
	for i := 0; i < len(c); i++ {
		if rest[c[i]] > 0 {
			rest[c[i]]--
			common++
		}
	}
	return max(n, len(c)) - common
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
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
	return n.names
}

// withFieldHint adds to an unknown-field problem of a field step on n
// the field it most likely means. The problem is the step's own, made
// for this resolution, and is changed in place.
func withFieldHint(err *problem, n *typeNode, st step) *problem {
	f, ok := st.(*fieldStep)
	if ok && err.err == ErrUnknownField && err.candidates == nil {
		err.word, err.candidates = f.name, fieldNames(n)
	}
	return err
}

// unknownField is the problem of a field name that is not one of
// candidates, with the candidate it most likely means.
func unknownField(name string, candidates []string, format string, args ...any) *problem {
	return &problem{err: ErrUnknownField, msg: fmt.Sprintf(format, args...), word: name, candidates: candidates}
}

// DidYouMean is the hint of the candidate nearest to word, " (did you
// mean X?)", or "" when none is close: the compile-time suggestions, for
// the checks of a result.
func DidYouMean(word string, candidates []string) string { return didYouMean(word, candidates) }
