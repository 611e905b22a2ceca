package condition

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// maxAllocPerCall is what one evaluation may allocate at most: a result
// of 10 MB of text or a list of a million items (what costs the per-call
// limit), with what the evaluation reads and converts on the way. The
// attack took gigabytes.
const maxAllocPerCall = 64 << 20

// evalAllocating evaluates c over obj and returns what the evaluation
// allocated, with the conversion of the objects it reads (every
// goroutine's allocations: the test does not run in parallel).
func evalAllocating(c *Condition, obj map[string]any) (ok bool, allocated uint64, err error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ok, err = c.Eval(context.Background(), NewVars(&Input{Object: obj}), NewBudget(0))
	runtime.ReadMemStats(&after)
	return ok, after.TotalAlloc - before.TotalAlloc, err
}

// withAnnotation is a Deployment with annotation a of n bytes of 'a' and
// b of n bytes of 'b'.
func withAnnotation(n int) map[string]any {
	d := deployment(1, nil)
	d["metadata"].(map[string]any)["annotations"] = map[string]any{"a": strings.Repeat("a", n), "b": strings.Repeat("b", n)}
	return d
}

// TestGuardsRefuseLargeResultsBeforeBuildingThem: the functions that can
// build more than they read refuse, before building it, a result that
// would cost more than the per-call limit, whatever the estimate let
// through (here none: they compile without it); the evaluation fails
// with ErrCostExceeded having allocated little.
func TestGuardsRefuseLargeResultsBeforeBuildingThem(t *testing.T) {
	big := withAnnotation(16 << 10)
	spec := big["spec"].(map[string]any)
	spec["text"] = strings.Repeat("x", 3<<20)
	spec["pattern"] = strings.Repeat(".{1000}", 400) // 2,800 bytes, 400,000 instructions
	spec["list"] = make([]any, 200_000)
	for i := range spec["list"].([]any) {
		spec["list"].([]any)[i] = int64(i)
	}
	repeat := func(s string, n int) string { return "[" + strings.TrimSuffix(strings.Repeat(s+",", n), ",") + "]" }
	cases := []struct{ expr, msg string }{
		// 256 MiB of a 16 KiB annotation
		{attack, "replace would build 268435456 bytes"},
		{"'%.100000000f'.format([1.0]) != ''", "format would build"},
		{"object.spec.text.split('').size() > 0", "split would build a list of 3145728 items"},
		{repeat("object.spec.text", 10) + ".join('') != ''", "join would build"},
		{repeat("object.spec.list", 10) + ".flatten().size() > 0", "flatten would build"},
		{"object.spec.text.findAll('').size() > 0", "findAll would build"},
		{"object.spec.text.findAll(object.metadata.name.substring(0, 0)).size() > 0", "findAll would build"},
		{"(object.spec.list + object.spec.list + object.spec.list + object.spec.list + object.spec.list + object.spec.list).sort().size() > 0", "a list function would build a list of 1200000 items"},
		{"(object.spec.list + object.spec.list + object.spec.list + object.spec.list + object.spec.list + object.spec.list).slice(0, 1100000).size() > 0", "slice would build"},
		{"object.metadata.name.matches(object.spec.pattern)", "compiling a regex would build"},
		{"object.metadata.name.find(object.spec.pattern) == ''", "compiling a regex would build"},
		{"object.metadata.name.findAll(object.spec.pattern).size() > 0", "compiling a regex would build"},
	}
	for _, tc := range cases {
		if _, err := Compile(tc.expr, Options{}); err == nil && !strings.Contains(tc.msg, "regex") {
			t.Errorf("%s: compiled within the estimate", tc.expr)
		}
		_, n, err := evalAllocating(mustCompileUnbounded(t, tc.expr), big)
		if !errors.Is(err, ErrCostExceeded) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want ErrCostExceeded: %s", tc.expr, err, tc.msg)
		}
		if n > maxAllocPerCall && !raceDetector {
			t.Errorf("%s: allocated %d bytes, more than %d", tc.expr, n, maxAllocPerCall)
		}
		t.Logf("%s: %d bytes", tc.expr, n)
	}
}

// TestConditionsWithinTheEstimateStayWithinMemory: conditions that
// compile, over the largest objects their estimate assumes (256 KiB of
// annotations, 3 MiB of text, a list of containers), allocate a bounded
// amount per evaluation and stay within the per-call limit.
func TestConditionsWithinTheEstimateStayWithinMemory(t *testing.T) {
	annotated := withAnnotation(128 << 10)
	annotated["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"] = []any{
		map[string]any{"name": "c", "image": strings.Repeat("x", 3<<20)},
	}
	// 1 MiB of containers: CEL's cost tracking takes a time that grows
	// with the square of a loop's iterations, a few seconds at 3 MiB
	containers := deployment(1, nil)
	var list []any
	for size := 0; size < 1<<20; size += len(`{"name":"c","image":"registry.example/x"},`) {
		list = append(list, map[string]any{"name": "c", "image": "registry.example/x"})
	}
	containers["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"] = list
	patterned := deployment(1, map[string]any{"pattern": "^(" + strings.Repeat("[a-z]{1,9}", 5) + "|web)$"})
	cases := []struct {
		expr   string
		object map[string]any
	}{
		{"object.metadata.annotations['a'].replace('a', 'bbbbbbbbbb') != ''", annotated},
		{"object.metadata.annotations['a'].split('').size() > 0", annotated},
		{"object.metadata.annotations['a'].findAll('a').size() > 0", annotated},
		{"'%s %s'.format([object.metadata.annotations['a'], object.metadata.annotations['b']]) != ''", annotated},
		{"[object.metadata.annotations['a'], object.metadata.annotations['b']].join('-') != ''", annotated},
		{"object.metadata.annotations['a'] + object.metadata.annotations['b'] != ''", annotated},
		{"object.spec.template.spec.containers[0].image.replace('xx', 'y').startsWith('y')", annotated},
		{"object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example/'))", containers},
		// a pattern read at run time: 63 characters of a label
		{"object.metadata.name.matches(object.metadata.labels['pattern'])", patterned},
	}
	for _, tc := range cases {
		ok, n, err := evalAllocating(mustCompile(t, tc.expr, Options{}), tc.object)
		if err != nil || !ok {
			t.Errorf("%s = %v, %v; want true", tc.expr, ok, err)
		}
		if n > maxAllocPerCall && !raceDetector {
			t.Errorf("%s: allocated %d bytes, more than %d", tc.expr, n, maxAllocPerCall)
		}
		t.Logf("%s: %d bytes", tc.expr, n)
	}
}

// TestBuildingIsCharged: the cost of a call that builds a result larger
// than what it read is that of its result, where the library charges its
// reading only.
func TestBuildingIsCharged(t *testing.T) {
	in := Input{Object: withAnnotation(64 << 10)}
	for expr, want := range map[string]uint64{
		// 640 KiB of text: 65,536 units
		"object.metadata.annotations['a'].replace('a', 'bbbbbbbbbb') != ''": 64 << 10,
		// a list of 65,536 items
		"object.metadata.annotations['a'].split('').size() > 0":    64 << 10,
		"object.metadata.annotations['a'].findAll('a').size() > 0": 64 << 10,
		// 128 KiB of text
		"'%s%s'.format([object.metadata.annotations['a'], object.metadata.annotations['b']]) != ''": 128 << 10 / 10,
	} {
		budget := NewBudget(0)
		if _, err := mustCompile(t, expr, Options{}).Eval(context.Background(), NewVars(&in), budget); err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if budget.Spent() < want {
			t.Errorf("%s: charged %d, want at least %d", expr, budget.Spent(), want)
		}
	}
}
