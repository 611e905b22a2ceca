package kpatch

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// conflictIndex holds the writes of the files seen so far, by kind and
// full path: only writes in one bucket can conflict.
type conflictIndex map[bucketKey]*writeBucket

type bucketKey struct{ kind, path string }

// writeBucket is the writes of one kind and path, by target: a write
// meets only the targets whose name and namespace patterns may overlap
// its own, found through pattern indexes (patternIndex).
type writeBucket struct {
	byTarget     map[Target]*targetWrites
	byName       patternIndex // every target, by its name
	anyNamespace patternIndex // the targets without a namespace, by name
	byNamespace  patternIndex // the targets with a namespace, by namespace
}

// targetWrites is the writes of one bucket with one target, counted by
// value and by file so that conflicts are counted without comparing
// writes pairwise.
type targetWrites struct {
	target      Target
	spec        Specificity // the target's
	writes      []seqWrite
	byValue     map[string]int
	byFile      map[string]int
	byFileValue map[[2]string]int
}

// seqWrite is a write and its place in the files' order.
type seqWrite struct {
	*write
	seq int
	val string // valueKey of the value
}

func (idx conflictIndex) bucket(w *write) *writeBucket {
	return idx[bucketKey{w.kind, w.path}]
}

// add indexes a write.
func (idx conflictIndex) add(w *write, seq int) {
	key := bucketKey{w.kind, w.path}
	b := idx[key]
	if b == nil {
		b = &writeBucket{byTarget: map[Target]*targetWrites{}, byNamespace: patternIndex{byNamespace: true}}
		idx[key] = b
	}
	t := b.byTarget[w.target]
	if t == nil {
		t = &targetWrites{target: w.target, spec: w.target.Specificity(), byValue: map[string]int{}, byFile: map[string]int{}, byFileValue: map[[2]string]int{}}
		b.byTarget[w.target] = t
		b.index(t)
	}
	val := valueKey(w.value)
	t.writes = append(t.writes, seqWrite{write: w, seq: seq, val: val})
	t.byValue[val]++
	t.byFile[w.pos.File]++
	t.byFileValue[[2]string{w.pos.File, val}]++
}

// count is how many earlier writes conflict with w: in another file, on
// a target that may overlap, with another value.
func (idx conflictIndex) count(w *write) (int, *writeBucket) {
	b := idx.bucket(w)
	if b == nil {
		return 0, nil
	}
	val, n := valueKey(w.value), 0
	b.overlapping(w, func(t *targetWrites) {
		n += len(t.writes) - t.byValue[val] - t.byFile[w.pos.File] + t.byFileValue[[2]string{w.pos.File, val}]
	})
	return n, b
}

// index adds a new target to the bucket's pattern indexes.
func (b *writeBucket) index(t *targetWrites) {
	b.byName.add(t)
	if t.target.Namespace == "" {
		b.anyNamespace.add(t)
	} else {
		b.byNamespace.add(t)
	}
}

// overlapping calls f with each target of the bucket that may overlap w's
// and is at least as specific: a write to a more specific target than the
// earlier one overrides it on purpose.
func (b *writeBucket) overlapping(w *write, f func(*targetWrites)) {
	spec := w.target.Specificity()
	b.candidates(w, func(t *targetWrites) {
		if mayOverlap(&t.target, &w.target) && t.spec.Compare(spec) >= 0 {
			f(t)
		}
	})
}

// candidates calls f (when not nil) with each target of the bucket whose
// name and namespace patterns may overlap w's, each once, and returns how
// many there are. It looks the targets up by name, or, for a write with a
// namespace when that finds fewer, by namespace (and the targets without
// one by name): its cost is the patterns' length plus the candidates.
func (b *writeBucket) candidates(w *write, f func(*targetWrites)) int {
	name := b.byName.pattern(&w.target)
	if w.target.Namespace == "" {
		return b.byName.candidates(name, f)
	}
	ns := b.byNamespace.pattern(&w.target)
	if b.byName.candidates(name, nil) <= b.anyNamespace.candidates(name, nil)+b.byNamespace.candidates(ns, nil) {
		return b.byName.candidates(name, f)
	}
	return b.anyNamespace.candidates(name, f) + b.byNamespace.candidates(ns, f)
}

// conflicts appends the conflicts of w with the earlier writes of the
// bucket, in the files' order, until out holds limit (no limit when
// negative).
func (b *writeBucket) conflicts(w *write, out []*Conflict, limit int) []*Conflict {
	var earlier []seqWrite
	b.overlapping(w, func(t *targetWrites) { earlier = append(earlier, t.writes...) })
	slices.SortFunc(earlier, func(x, y seqWrite) int { return x.seq - y.seq })
	val := valueKey(w.value)
	for _, e := range earlier {
		if limit >= 0 && len(out) >= limit {
			break
		}
		if e.pos.File == w.pos.File || e.val == val {
			continue
		}
		out = append(out, &Conflict{Path: w.path, Earlier: e.pos, EarlierValue: e.value, Later: w.pos, LaterValue: w.value, Target: e.target, Other: w.target})
	}
	return out
}

// valueKey is a text that two values share exactly when equalValue holds:
// numbers by value whatever their Go type, maps with their keys sorted.
func valueKey(v any) string {
	var b strings.Builder
	writeValueKey(&b, v)
	return b.String()
}

func writeValueKey(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		b.WriteByte('{')
		for _, k := range slices.Sorted(maps.Keys(x)) {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeValueKey(b, x[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for _, e := range x {
			writeValueKey(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case string:
		b.WriteString(strconv.Quote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		if f, ok := number(v); ok {
			b.WriteString("n" + jsonvalue.FormatFloat(f))
			return
		}
		fmt.Fprintf(b, "%T:%#v", v, v) // no parsed value has another type
	}
}
