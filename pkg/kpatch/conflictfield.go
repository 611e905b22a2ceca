package kpatch

import (
	"fmt"
	"slices"
	"strings"
)

// FieldConflict is one contested field: a field of one target that
// several files set, two of them at least to different values, reported
// once whatever the number of files. Files apply in order, so the last
// write wins on the objects it hits.
type FieldConflict struct {
	Kind   string // lower case
	Path   string // the field, as a full path
	Target Target // the target of the writes that conflict with earlier ones
	// Writes are every write of the field on targets that may overlap
	// Target, at least as specific, in the order the files apply: the
	// writes in conflict and those that agree with one of them.
	Writes []FieldWrite
	// Pairs counts the pairs of writes in conflict (files a and b, a
	// before b, with different values), which Conflicts lists one by one.
	Pairs int

	intended Intended
}

// EachPair calls f with each pair of writes in conflict, as indexes into
// Writes (earlier < later): writes of two files, with different values,
// which the later file does not override on purpose. There are Pairs of
// them when the writes are all on one target; its cost is the square of
// the writes: for tools that want the pairs.
func (c *FieldConflict) EachPair(f func(earlier, later int)) {
	keys := make([]string, len(c.Writes))
	for i, w := range c.Writes {
		keys[i] = valueKey(w.Value)
	}
	for j, later := range c.Writes {
		for i, earlier := range c.Writes[:j] {
			if earlier.Pos.File == later.Pos.File || keys[i] == keys[j] ||
				c.intended != nil && c.intended(later.Pos.File, earlier.Pos.File) {
				continue
			}
			f(i, j)
		}
	}
}

// FieldWrite is one write of a contested field.
type FieldWrite struct {
	Pos    Position
	Value  any
	Target Target
}

// MaxFieldFiles is how many files the text of a FieldConflict names
// before it counts the rest.
const MaxFieldFiles = 3

// Winner is the write that applies last.
func (c *FieldConflict) Winner() FieldWrite { return c.Writes[len(c.Writes)-1] }

// Files are the files of the writes, each once, in the order they apply.
func (c *FieldConflict) Files() []string {
	seen := make(map[string]bool, len(c.Writes))
	var out []string
	for _, w := range c.Writes {
		if !seen[w.Pos.File] {
			seen[w.Pos.File] = true
			out = append(out, w.Pos.File)
		}
	}
	return out
}

// Error formats the conflict on one line, naming MaxFieldFiles files and
// counting the others: deployment.web spec.replicas: set by 2000 files
// (a.kpatch:2:1 to 1, b.kpatch:2:1 to 2, c.kpatch:2:1 to 3, ... 1997 more); z.kpatch:2:1 wins
// (applies last, 1999).
func (c *FieldConflict) Error() string { return c.Text(MaxFieldFiles) }

// Text formats the conflict naming at most max writes (all of them when
// max is negative).
func (c *FieldConflict) Text(max int) string { return c.TextShowing(max, nil) }

// TextShowing is Text with the values of the writes of the files show
// accepts only, every value when show is nil: the other writes are named
// by their position alone. The webhook's registry validation tells an
// editor the values of the files it submits, never those of other
// ConfigMaps, which its caller may not read.
func (c *FieldConflict) TextShowing(max int, show func(file string) bool) string {
	shown := func(w FieldWrite) bool { return show == nil || show(w.Pos.File) }
	var b strings.Builder
	t := c.Target
	if t.Kind == "" {
		t.Kind = c.Kind
	}
	fmt.Fprintf(&b, "%s %s: set by %d files (", t.String(), c.Path, len(c.Files()))
	for i, w := range c.Writes {
		if max >= 0 && i == max {
			fmt.Fprintf(&b, ", ... %d more", len(c.Writes)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(posText(w.Pos))
		if shown(w) {
			b.WriteString(" to " + valueText(w.Value))
		}
	}
	win := c.Winner()
	if shown(win) {
		fmt.Fprintf(&b, "); %s wins (applies last, %s)", posText(win.Pos), valueText(win.Value))
	} else {
		fmt.Fprintf(&b, "); %s wins (applies last)", posText(win.Pos))
	}
	return b.String()
}

// posText is a position as file:line:column, or the file alone when it
// has no line.
func posText(p Position) string {
	if p.Line == 0 {
		return p.File
	}
	return p.String()
}

// Conflict is the conflict of the winner with the last earlier write of
// another value, whose Error is the field's line (c.Error()).
func (c *FieldConflict) Conflict() *Conflict {
	win := c.Winner()
	earlier := c.Writes[0]
	for i := len(c.Writes) - 2; i >= 0; i-- {
		w := c.Writes[i]
		if w.Pos.File != win.Pos.File && !equalValue(w.Value, win.Value) {
			earlier = w
			break
		}
	}
	return &Conflict{Path: c.Path, Earlier: earlier.Pos, EarlierValue: earlier.Value, Later: win.Pos, LaterValue: win.Value,
		Target: earlier.Target, Other: win.Target, Field: c}
}

// Intended reports whether the file later overrides the file earlier on
// purpose (it builds on it): such a pair is no conflict.
type Intended func(later, earlier string) bool

// FieldConflicts finds the conflicts ConflictsInOrder finds, grouped by
// kind, field and target: one FieldConflict per contested field, in the
// order their first conflict is met. Its cost is linear in the number of
// fields the files set when the targets of one field are few (as
// ConflictsInOrder's count), whatever the number of files: no pair is
// compared. A write whose every conflict is intended (intended, when not
// nil) is no conflict; finding that out reads the earlier writes until one
// is not intended.
func FieldConflicts(patches []*Patch, keys []OrderKey, intended Intended) []*FieldConflict {
	idx := conflictIndex{}
	groups := map[fieldKey]*fieldGroup{}
	var out []*fieldGroup
	seq := 0
	type hit struct {
		w *write
		n int
	}
	for i, p := range patches {
		if i > 0 && keys != nil && !keys[i].SameLevel(keys[i-1]) {
			idx = conflictIndex{} // every earlier write is of a lower level
			groups = map[fieldKey]*fieldGroup{}
		}
		mine := p.constantWrites()
		var hits []hit
		for j := range mine {
			w := &mine[j]
			n, b := idx.count(w)
			if n > 0 && intended != nil && b.allIntended(w, intended) {
				n = 0
			}
			if n > 0 {
				hits = append(hits, hit{w, n})
			}
		}
		for j := range mine {
			idx.add(&mine[j], seq)
			seq++
		}
		for _, h := range hits {
			key := fieldKey{h.w.kind, h.w.path, h.w.target}
			g := groups[key]
			if g == nil {
				g = &fieldGroup{FieldConflict: FieldConflict{Kind: h.w.kind, Path: h.w.path, Target: h.w.target, intended: intended}, upTo: map[*targetWrites]int{}}
				groups[key] = g
				out = append(out, g)
			}
			g.Pairs += h.n
			idx.bucket(h.w).overlapping(h.w, g.take)
		}
	}
	res := make([]*FieldConflict, len(out))
	for i, g := range out {
		g.sortWrites()
		res[i] = &g.FieldConflict
	}
	return res
}

type fieldKey struct {
	kind, path string
	target     Target
}

// fieldGroup is a FieldConflict being built: upTo is how many writes of
// each target it holds, so that each write joins it once.
type fieldGroup struct {
	FieldConflict
	upTo map[*targetWrites]int
	seqs []int
}

// take adds the writes of t that the group does not hold yet.
func (g *fieldGroup) take(t *targetWrites) {
	for _, w := range t.writes[g.upTo[t]:] {
		g.Writes = append(g.Writes, FieldWrite{Pos: w.pos, Value: w.value, Target: w.target})
		g.seqs = append(g.seqs, w.seq)
	}
	g.upTo[t] = len(t.writes)
}

// sortWrites puts the writes in the order the files apply: those of
// several targets were taken target by target.
func (g *fieldGroup) sortWrites() {
	if len(g.upTo) == 1 {
		return // one target: taken in order
	}
	idx := make([]int, len(g.Writes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return g.seqs[a] - g.seqs[b] })
	sorted := make([]FieldWrite, len(g.Writes))
	for i, j := range idx {
		sorted[i] = g.Writes[j]
	}
	g.Writes = sorted
}

// allIntended reports whether every earlier write in conflict with w is
// one w's file overrides on purpose.
func (b *writeBucket) allIntended(w *write, intended Intended) bool {
	val, all := valueKey(w.value), true
	b.overlapping(w, func(t *targetWrites) {
		for i := 0; all && i < len(t.writes); i++ {
			e := t.writes[i]
			if e.pos.File != w.pos.File && e.val != val && !intended(w.pos.File, e.pos.File) {
				all = false
			}
		}
	})
	return all
}
