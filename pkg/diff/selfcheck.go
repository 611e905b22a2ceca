package diff

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"kpatch.dev/kpatch/internal/listalign"
	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// errSelfCheck is a diff whose printed patch, applied to BASE, does not
// give TARGET: a bug of kpatch diff or of the engine, never printed.
var errSelfCheck = errors.New("internal error: the patch does not turn BASE into TARGET (please report it with both inputs)")

// mismatch is the first place where the patched base object differs from
// the target object.
type mismatch struct {
	key       Key
	object    string
	loc       string // JSON pointer into the target
	list      string // the deepest list on the way to loc, "" if none
	got, want any
}

func (m *mismatch) Error() string {
	return fmt.Sprintf("%s: %v at %s: got %s, want %s", m.object, errSelfCheck, m.loc, brief(m.got), brief(m.want))
}

func (m *mismatch) Unwrap() error { return errSelfCheck }

// brief prints a value as short JSON for a message.
func brief(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

// selfCheck parses and compiles the printed patch as a user would, applies
// it to every object of BASE, and compares the result with the object of
// TARGET (an object only in BASE must come out unchanged). It returns the
// first mismatch, or the engine's error.
func selfCheck(name string, printed []byte, base []*Object, targets map[Key]*Object) (*mismatch, error) {
	p, err := kpatch.ParseAndCompile(name, printed)
	if err != nil {
		return nil, fmt.Errorf("%w: the printed patch does not compile: %v", errSelfCheck, err)
	}
	for _, b := range base {
		got, err := kpatch.Apply(b.Obj, []*kpatch.Patch{p}, kpatch.ApplyOptions{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w: the printed patch fails: %v", b.Ref, errSelfCheck, err)
		}
		want := b.Obj
		if t, ok := targets[b.Key]; ok {
			want = t.Obj
		}
		if m := firstDifference(got, want, "", ""); m != nil {
			m.key, m.object = b.Key, b.Ref.String()
			return m, nil
		}
	}
	return nil, nil
}

// firstDifference walks got and want and returns where they first
// differ; list is the deepest list passed on the way.
func firstDifference(got, want any, loc, list string) *mismatch {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return &mismatch{loc: loc, list: list, got: got, want: want}
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			gv, ok := g[k]
			if !ok {
				return &mismatch{loc: locField(loc, k), list: list, got: nil, want: w[k]}
			}
			if m := firstDifference(gv, w[k], locField(loc, k), list); m != nil {
				return m
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return &mismatch{loc: loc, list: loc, got: got, want: want}
		}
		for i := range w {
			if m := firstDifference(g[i], w[i], loc+"/"+strconv.Itoa(i), loc); m != nil {
				return m
			}
		}
		return nil
	}
	if sameScalar(got, want) {
		return nil
	}
	return &mismatch{loc: loc, list: list, got: got, want: want}
}

// sameScalar compares two scalars as the API server reads them: equal
// values, or a number or boolean and its text, which the engine writes
// into string and quantity fields (cpu: 1 is the quantity "1").
func sameScalar(got, want any) bool {
	if jsonvalue.Equal(got, want) {
		return true
	}
	gs, gIsString := got.(string)
	ws, wIsString := want.(string)
	switch {
	case gIsString && !wIsString && want != nil:
		t, ok := listalign.ScalarText(want)
		return ok && listalign.ShapeOf(want) == listalign.ScalarShape && t == gs
	case wIsString && !gIsString && got != nil:
		t, ok := listalign.ScalarText(got)
		return ok && listalign.ShapeOf(got) == listalign.ScalarShape && t == ws
	}
	return false
}
