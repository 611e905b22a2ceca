package kpatch

import (
	"strings"
	"testing"
)

// smallGlobs is every pattern of up to three tokens among a, b, ?, *
// and an escaped star.
func smallGlobs() []string {
	tokens := []string{"a", "b", "?", "*", `\*`}
	out := []string{""}
	for i := 0; i < len(out); i++ {
		p := out[i]
		if len(p)-strings.Count(p, `\`) == 3 {
			continue
		}
		for _, t := range tokens {
			out = append(out, p+t)
		}
	}
	return out
}

// smallStrings is every string of up to six bytes among a, b and *: two
// patterns of three tokens that share a string share one of these, as
// every byte of a shortest common string moves one of them on.
func smallStrings() []string {
	out := []string{""}
	for i := 0; i < len(out); i++ {
		if len(out[i]) < 6 {
			for _, c := range []string{"a", "b", "*"} {
				out = append(out, out[i]+c)
			}
		}
	}
	return out
}

// TestGlobsIntersect checks globsIntersect and namesOverlap against the
// strings both patterns match, for every pair of small patterns.
func TestGlobsIntersect(t *testing.T) {
	globs, strs := smallGlobs(), smallStrings()
	if len(globs) != 1+5+25+125 || len(strs) != 1+3+9+27+81+243+729 {
		t.Fatalf("%d patterns, %d strings", len(globs), len(strs))
	}
	matches := make([][]bool, len(globs))
	for i, g := range globs {
		matches[i] = make([]bool, len(strs))
		for j, s := range strs {
			matches[i][j] = globMatch(g, s)
		}
	}
	for i, a := range globs {
		for j, b := range globs {
			want := false
			for k := range strs {
				want = want || matches[i][k] && matches[j][k]
			}
			if got := globsIntersect(a, b); got != want {
				t.Errorf("globsIntersect(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
		if !isGlob(a) {
			continue
		}
		for k, s := range strs {
			if got := namesOverlap(s, true, a, false); got != matches[i][k] {
				t.Errorf("namesOverlap(literal %q, glob %q) = %v, want %v", s, a, got, matches[i][k])
			}
		}
	}
}

func TestGlobsIntersectLong(t *testing.T) {
	long := strings.Repeat("ab", 50)
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{long + "*", "*" + long, true},
		{long + "?", long, false},
		{strings.Repeat("?", 100), strings.Repeat("*a", 101), false},
		{strings.Repeat("?", 100), strings.Repeat("*a", 50), true},
	} {
		if got := globsIntersect(c.a, c.b); got != c.want {
			t.Errorf("globsIntersect(%.20q..., %.20q...) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestGlobAffixes(t *testing.T) {
	for _, c := range []struct{ pattern, prefix, suffix string }{
		{"web-*", "web-", ""},
		{"*-canary", "", "-canary"},
		{"app-?-*-x", "app-", "-x"},
		{"*", "", ""},
		{`a\*b*c\?`, "a*b", "c?"},
		{`a\*`, "a*", "a*"},
		{`a*\`, "a", `\`},
		{"team", "team", "team"},
	} {
		if p, s := globAffixes(c.pattern); p != c.prefix || s != c.suffix {
			t.Errorf("globAffixes(%q) = %q, %q; want %q, %q", c.pattern, p, s, c.prefix, c.suffix)
		}
	}
}
