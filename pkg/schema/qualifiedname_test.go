package schema

import (
	"math"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

var qualifiedNameSeeds = []string{
	"a", "A", "app", "team", "kubernetes.io/os", "example.com/owner", "prometheus.io/scrape", "Example.COM/Owner",
	"a.b-c_d", "-a", "a-", "_a", "a_", ".a", "a.", "a/b/c", "/a", "a/", "a..b/c", "a-.b/c", "-a.b/c", "a.b-/c", "1/2",
	"café", "a b", "a/b c", "", "/", "x/" + strings.Repeat("a", 63), "x/" + strings.Repeat("a", 64),
	strings.Repeat("a", 253) + "/b", strings.Repeat("a", 254) + "/b", strings.Repeat("a.", 126) + "a/b",
	"A/b", "\u212a/b", "a\n", "a/b\n",
}

// FuzzQualifiedName holds isQualifiedName to the API server's
// validation: a label key it takes is one validation.IsQualifiedName
// takes, and an annotation key one it takes lowercased; on ASCII keys,
// both ways.
func FuzzQualifiedName(f *testing.F) {
	for _, k := range qualifiedNameSeeds {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		checkQualifiedName(t, k)
	})
}

func TestQualifiedNameAsTheAPIServer(t *testing.T) {
	for _, k := range qualifiedNameSeeds {
		checkQualifiedName(t, k)
	}
}

func checkQualifiedName(t *testing.T, k string) {
	t.Helper()
	ascii := true
	for i := range len(k) {
		ascii = ascii && k[i] < 0x80
	}
	label := len(validation.IsQualifiedName(k)) == 0
	if got := isQualifiedName(k, false); got && !label || ascii && got != label {
		t.Errorf("label key %q: isQualifiedName %v, validation %v", k, got, label)
	}
	annotation := len(validation.IsQualifiedName(strings.ToLower(k))) == 0
	if got := isQualifiedName(k, true); got && !annotation || ascii && got != annotation {
		t.Errorf("annotation key %q: isQualifiedName %v, validation %v", k, got, annotation)
	}
}

// TestKeyCheckAllocatesNothing holds the check of a valid label and
// annotation key to no allocation.
func TestKeyCheckAllocatesNothing(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		if labelsNode.keyProblem("kubernetes.io/os") != "" || annotationsNode.keyProblem("Example.com/Owner") != "" {
			t.Fatal("refused")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations checking two valid keys, want 0", n)
	}
}

// TestIntOrStringAsDecoded holds isIntOrString to IntOrString's own
// decoding: what it takes decodes.
func TestIntOrStringAsDecoded(t *testing.T) {
	for _, v := range []any{"", "http", "25%", int64(0), int64(-1), int64(math.MaxInt32), int64(math.MinInt32),
		int64(math.MaxInt32 + 1), int64(math.MinInt32 - 1), 1.5, 2.0, true, nil, map[string]any{}, []any{}} {
		if isIntOrString(v) && decodes(v, intOrStringType) != "" {
			t.Errorf("%#v: taken, but decoding it says %s", v, decodes(v, intOrStringType))
		}
	}
	n := testing.AllocsPerRun(100, func() {
		if typeOf(intOrStringType).check("http") != "" || typeOf(intOrStringType).check(int64(8080)) != "" {
			t.Fatal("refused")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations checking two IntOrStrings, want 0", n)
	}
}
