package listalign

import (
	"slices"
	"testing"
)

func items(s ...any) []any { return s }

func TestListsKeepsTheLongestCommonRun(t *testing.T) {
	base := items("a", "b", "c", "d")
	target := items("a", "x", "c", "d", "e")
	got := Lists(base, target, SameShape)
	want := []Step{{Keep, 0, 0}, {Pair, 1, 1}, {Keep, 2, 2}, {Keep, 3, 3}, {Insert, -1, 4}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestListsDeletesAndInsertsWhatCannotPair(t *testing.T) {
	base := items("a", map[string]any{"k": "v"}, "c")
	target := items("a", "b", "c")
	got := Lists(base, target, SameShape)
	want := []Step{{Keep, 0, 0}, {Delete, 1, -1}, {Insert, -1, 1}, {Keep, 2, 2}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestItemsAlignsByName(t *testing.T) {
	a, b := map[string]any{"name": "a", "v": 1.0}, map[string]any{"name": "b"}
	a2 := map[string]any{"name": "a", "v": 2.0}
	got := Items(items(a, b), items(b, a2))
	// b stays, a moves (deleted and inserted), as a reader sees the names
	want := []Step{{Delete, 0, -1}, {Keep, 1, 0}, {Insert, -1, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := Items(items(a), items(a2)); !slices.Equal(got, []Step{{Pair, 0, 0}}) {
		t.Errorf("a changed item: got %v", got)
	}
}

func TestIdentityKey(t *testing.T) {
	ports := items(map[string]any{"containerPort": 80.0, "name": "x"}, map[string]any{"containerPort": 81.0, "name": "x"})
	if k := IdentityKey("containerPort", ports, ports); k != "containerPort" {
		t.Errorf("merge key: got %q", k)
	}
	if k := IdentityKey("", ports, ports); k != "" {
		t.Errorf("names shared by two items identify nothing: got %q", k)
	}
}

func TestLongestIncreasing(t *testing.T) {
	got := LongestIncreasing([]int{3, 0, 1, 5, 2, 4})
	want := []bool{false, true, true, false, true, true}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestScalarText(t *testing.T) {
	for v, want := range map[any]string{"x": "x", true: "true", int64(-3): "-3", 1.5: "1.5", 1e21: "1e+21", 3.0: "3"} {
		if got, ok := ScalarText(v); !ok || got != want {
			t.Errorf("ScalarText(%v) = %q, %v; want %q", v, got, ok, want)
		}
	}
	if _, ok := ScalarText(nil); ok {
		t.Error("null has no text")
	}
}
