package listalign

import (
	"encoding/json"
	"fmt"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// Op is what one step of a list alignment does.
type Op uint8

const (
	Keep   Op = iota // the item is equal in both lists
	Pair             // the item changed in place
	Delete           // the base item is gone
	Insert           // the target item is new
)

// Step is one step of the alignment of a base list with a target
// list; base and target are item indexes, -1 where the step has none.
type Step struct {
	Op           Op
	Base, Target int
}

// maxLCSCells bounds the table of the longest common subsequence of the
// changed middle of two lists; beyond it the middle is paired by position.
const maxLCSCells = 1 << 20

// Lists aligns two lists as a line diff aligns two texts: equal
// items are kept (the common prefix and suffix, then the longest common
// subsequence of the middle), and between two kept items the rest are
// paired by position where pairable allows (an item changed in place),
// else deleted and inserted. The steps come in list order.
func Lists(base, target []any, pairable func(b, t any) bool) []Step {
	steps := make([]Step, 0, max(len(base), len(target)))
	bi, ti := 0, 0
	for _, a := range anchors(ItemKeys(base), ItemKeys(target)) {
		steps = appendRun(steps, base, target, bi, a[0], ti, a[1], pairable)
		steps = append(steps, Step{Keep, a[0], a[1]})
		bi, ti = a[0]+1, a[1]+1
	}
	return appendRun(steps, base, target, bi, len(base), ti, len(target), pairable)
}

// ByKey aligns two lists whose items a key identifies: the items
// with the same key, in the longest run of them that keeps its order,
// are kept or changed in place; the others are deleted and inserted.
func ByKey(base, target []any, key string) []Step {
	keys := func(items []any) []string {
		out := make([]string, len(items))
		for i, it := range items {
			out[i], _ = KeyText(it, key)
		}
		return out
	}
	never := func(_, _ any) bool { return false }
	steps := make([]Step, 0, max(len(base), len(target)))
	bi, ti := 0, 0
	for _, a := range anchors(keys(base), keys(target)) {
		steps = appendRun(steps, base, target, bi, a[0], ti, a[1], never)
		op := Keep
		if !jsonvalue.Equal(base[a[0]], target[a[1]]) {
			op = Pair
		}
		steps = append(steps, Step{op, a[0], a[1]})
		bi, ti = a[0]+1, a[1]+1
	}
	return appendRun(steps, base, target, bi, len(base), ti, len(target), never)
}

// Items aligns the items of a list as a reader sees them: by name
// where every item has a name of its own, else as Lists does.
func Items(base, target []any) []Step {
	if IdentityKey("", base, target) == "name" {
		return ByKey(base, target, "name")
	}
	return Lists(base, target, SameShape)
}

// anchors returns the index pairs of equal tokens that a line diff keeps:
// the common prefix and suffix, and the longest common subsequence of
// the middle.
func anchors(bk, tk []string) [][2]int {
	pre := 0
	for pre < len(bk) && pre < len(tk) && bk[pre] == tk[pre] {
		pre++
	}
	suf := 0
	for suf < len(bk)-pre && suf < len(tk)-pre && bk[len(bk)-1-suf] == tk[len(tk)-1-suf] {
		suf++
	}
	out := make([][2]int, 0, pre+suf)
	for i := range pre {
		out = append(out, [2]int{i, i})
	}
	for _, a := range commonSubsequence(bk[pre:len(bk)-suf], tk[pre:len(tk)-suf]) {
		out = append(out, [2]int{pre + a[0], pre + a[1]})
	}
	for i := range suf {
		out = append(out, [2]int{len(bk) - suf + i, len(tk) - suf + i})
	}
	return out
}

// appendRun aligns base[bi:bend] with target[ti:tend], two runs without
// an equal item: pairs by position, then the deletions and insertions left.
func appendRun(steps []Step, base, target []any, bi, bend, ti, tend int, pairable func(b, t any) bool) []Step {
	for bi < bend && ti < tend {
		if pairable(base[bi], target[ti]) {
			steps = append(steps, Step{Pair, bi, ti})
		} else {
			steps = append(steps, Step{Delete, bi, -1}, Step{Insert, -1, ti})
		}
		bi, ti = bi+1, ti+1
	}
	for ; bi < bend; bi++ {
		steps = append(steps, Step{Delete, bi, -1})
	}
	for ; ti < tend; ti++ {
		steps = append(steps, Step{Insert, -1, ti})
	}
	return steps
}

// commonSubsequence returns the index pairs of a longest common
// subsequence of a and b, or none when the table would be too large.
func commonSubsequence(a, b []string) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 || n*m > maxLCSCells {
		return nil
	}
	// lengths[i*(m+1)+j] is the LCS length of a[i:] and b[j:]
	lengths := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int32 { return lengths[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lengths[i*(m+1)+j] = at(i+1, j+1) + 1
			} else {
				lengths[i*(m+1)+j] = max(at(i+1, j), at(i, j+1))
			}
		}
	}
	var pairs [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			pairs = append(pairs, [2]int{i, j})
			i, j = i+1, j+1
		case at(i+1, j) >= at(i, j+1):
			i++
		default:
			j++
		}
	}
	return pairs
}

// ItemKeys returns a text per item that is equal for equal items: its
// JSON, whose maps have sorted keys and whose numbers are compared by
// value.
func ItemKeys(items []any) []string {
	keys := make([]string, len(items))
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			keys[i] = fmt.Sprintf("%#v", it)
			continue
		}
		keys[i] = string(b)
	}
	return keys
}

// SameShape reports whether two values are both maps, both lists or both
// scalars: an item that may change in place rather than be replaced.
func SameShape(a, b any) bool {
	return ShapeOf(a) == ShapeOf(b)
}

// Shape tells maps, lists and scalars apart.
type Shape uint8

const (
	ScalarShape Shape = iota
	MapShape
	ListShape
)

// ShapeOf returns the shape of a value.
func ShapeOf(v any) Shape {
	switch v.(type) {
	case map[string]any:
		return MapShape
	case []any:
		return ListShape
	}
	return ScalarShape
}

// LongestIncreasing marks the elements of a longest strictly increasing
// subsequence of seq, in O(n log n).
func LongestIncreasing(seq []int) []bool {
	tails := make([]int, 0, len(seq)) // indexes into seq
	prev := make([]int, len(seq))
	for i, v := range seq {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if seq[tails[mid]] < v {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		prev[i] = -1
		if lo > 0 {
			prev[i] = tails[lo-1]
		}
		if lo == len(tails) {
			tails = append(tails, i)
		} else {
			tails[lo] = i
		}
	}
	in := make([]bool, len(seq))
	if len(tails) > 0 {
		for i := tails[len(tails)-1]; i >= 0; i = prev[i] {
			in[i] = true
		}
	}
	return in
}

// IdentityKey returns the field that identifies the items of both lists:
// the merge key, else name, when every item is a map holding it as a
// scalar, and no two items of a list share its value. "" when none does.
func IdentityKey(mergeKey string, base, target []any) string {
	for _, key := range []string{mergeKey, "name"} {
		if key != "" && uniqueKeys(base, key) && uniqueKeys(target, key) {
			return key
		}
	}
	return ""
}

// uniqueKeys reports whether every item is a map whose field key is a
// scalar of its own text.
func uniqueKeys(items []any, key string) bool {
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		text, ok := KeyText(it, key)
		if !ok || seen[text] {
			return false
		}
		seen[text] = true
	}
	return true
}

// KeyText returns the text of an item's field key, as a selector
// compares it.
func KeyText(item any, key string) (string, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return "", false
	}
	return ScalarText(m[key])
}

// ScalarText returns a scalar as the text a selector compares it by
// (jsonvalue.Text); ok is false for maps, lists and null.
func ScalarText(v any) (string, bool) {
	if v == nil {
		return "", false
	}
	return jsonvalue.Text(v)
}
