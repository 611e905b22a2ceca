package kpatch

import (
	"strings"
	"testing"
)

func TestGlobMatchesPrefix(t *testing.T) {
	many := strings.Repeat("*", 10000)
	tests := []struct {
		pattern, prefix string
		want            bool
	}{
		{"web-*", "web-7d9f-", true},
		{"web-?", "web-7d9f-", false}, // `?` is one byte: the pattern ends before the prefix does
		{"web-?", "web-", true},       // web-x
		{"*-api", "web-", true},       // web-api
		{"w*", "web-", true},
		{"x*", "web-", false},
		{"web", "web-", false}, // a glob-free pattern is longer than no prefix
		{"web-7d9f-x?", "web-7d9f-", true},
		{"web-7d9f-?", "web-7d9f-", true},
		{"we?-*", "web-", true},
		{"wex-*", "web-", false},
		{"*", "web-", true},
		{"*", "", true},
		{"", "", true},
		{"", "w", false},
		{"?", "", true},
		{`web\*-*`, "web*-", true}, // an escaped `*` is a literal star
		{`web\*-*`, "web-", false},
		{`web\?`, "web?", true},
		{`web\?`, "webx", false},
		{`a\`, `a\`, true}, // a trailing `\` is itself
		{`a\`, `a\x`, false},
		{"a?c*", "abc-", true},
		{"a?c*", "abd-", false},
		// adversarial: many stars cost nothing past the first
		{"web-" + many + "x", "web-7d9f-", true},
		{"x" + many, strings.Repeat("a", 250), false},
		{strings.Repeat("a*", 5000) + "b", strings.Repeat("a", 250) + "-", true},
		{strings.Repeat("?", 5000), strings.Repeat("a", 253), true},
		{strings.Repeat("?", 252), strings.Repeat("a", 253), false},
	}
	for _, tt := range tests {
		if got := globMatchesPrefix(tt.pattern, tt.prefix); got != tt.want {
			t.Errorf("globMatchesPrefix(%.40q, %.40q) = %v, want %v", tt.pattern, tt.prefix, got, tt.want)
		}
		if got := globMatchesPrefixSlowly(tt.pattern, tt.prefix); len(tt.pattern) < 100 && got != tt.want {
			t.Errorf("the oracle says %v for (%q, %q), the table %v", got, tt.pattern, tt.prefix, tt.want)
		}
	}
}

// globMatchesPrefixSlowly is globMatchesPrefix by its definition: some
// string that starts with prefix matches pattern exactly when a part of
// pattern at its start, cut between two of its tokens, matches prefix
// (what is left of the pattern always matches some string).
func globMatchesPrefixSlowly(pattern, prefix string) bool {
	for i := 0; ; {
		if globMatch(pattern[:i], prefix) {
			return true
		}
		if i == len(pattern) {
			return false
		}
		if pattern[i] == '\\' && i+1 < len(pattern) {
			i++
		}
		i++
	}
}

func TestTargetMatchesGenerateName(t *testing.T) {
	tests := []struct {
		target string
		ref    ObjectRef
		want   bool
	}{
		{"pod.web-*", ObjectRef{Kind: "Pod", GenerateName: "web-7d9f-"}, true},
		{"pod.web-x", ObjectRef{Kind: "Pod", GenerateName: "web-x"}, false}, // a literal needs the name
		{"pod.[web-7d9f-]", ObjectRef{Kind: "Pod", GenerateName: "web-7d9f-"}, false},
		{"pod.web-?", ObjectRef{Kind: "Pod", GenerateName: "web-7d9f-"}, false},
		{"pod.*-api", ObjectRef{Kind: "Pod", GenerateName: "web-"}, true},
		{"pod.x*", ObjectRef{Kind: "Pod", GenerateName: "web-"}, false},
		{"pod.*", ObjectRef{Kind: "Pod"}, true}, // neither name nor generateName: as before
		{"pod.web-*", ObjectRef{Kind: "Pod"}, false},
		// a name wins over generateName, as the API server ignores it then
		{"pod.web-*", ObjectRef{Kind: "Pod", Name: "api", GenerateName: "web-"}, false},
		{"prod/pod.web-*", ObjectRef{Kind: "Pod", Namespace: "dev", GenerateName: "web-"}, false},
	}
	for _, tt := range tests {
		target, n, err := parseTarget(tt.target, 1)
		if err != nil || n != len(tt.target) {
			t.Fatalf("parseTarget(%q): %v", tt.target, err)
		}
		if got := target.Matches(&tt.ref); got != tt.want {
			t.Errorf("[%s] matches %+v = %v, want %v", tt.target, tt.ref, got, tt.want)
		}
	}
}

func TestRefOfReadsGenerateNameWithoutName(t *testing.T) {
	ref := RefOf(map[string]any{"kind": "Pod", "metadata": map[string]any{"generateName": "web-"}}, "ns")
	if ref.Name != "" || ref.GenerateName != "web-" {
		t.Errorf("RefOf = %+v, want no name and generateName web-", ref)
	}
	ref = RefOf(map[string]any{"kind": "Pod", "metadata": map[string]any{"name": "api", "generateName": "web-"}}, "ns")
	if ref.Name != "api" || ref.GenerateName != "" {
		t.Errorf("RefOf = %+v, want name api and no generateName", ref)
	}
}

func TestObjectRefNamesAGeneratedName(t *testing.T) {
	for _, c := range []struct {
		ref  ObjectRef
		want string
	}{
		{ObjectRef{Kind: "Pod", Namespace: "shop", GenerateName: "web-7d9f-"}, "Pod shop/web-7d9f-*"},
		{ObjectRef{Kind: "Pod", Namespace: "shop", Name: "web", GenerateName: "x-"}, "Pod shop/web"},
		{ObjectRef{Kind: "Namespace", GenerateName: "tmp-"}, "Namespace tmp-*"},
	} {
		if got := c.ref.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.ref, got, c.want)
		}
	}
}

// FuzzGlobMatchesPrefix checks globMatchesPrefix against its definition
// (globMatchesPrefixSlowly), and that each prefix of a string a glob
// matches is one it matches a prefix of.
func FuzzGlobMatchesPrefix(f *testing.F) {
	f.Add("web-*", "web-7d9f-", "x")
	f.Add("web-?", "web-7d9f-", "")
	f.Add(`a\*?*b`, "a*", "cb")
	f.Fuzz(func(t *testing.T, pattern, prefix, rest string) {
		if len(pattern) > 64 || len(prefix) > 64 || len(rest) > 64 {
			return
		}
		if got, want := globMatchesPrefix(pattern, prefix), globMatchesPrefixSlowly(pattern, prefix); got != want {
			t.Fatalf("globMatchesPrefix(%q, %q) = %v, its definition %v", pattern, prefix, got, want)
		}
		if s := prefix + rest; globMatch(pattern, s) && !globMatchesPrefix(pattern, prefix) {
			t.Fatalf("%q matches %q, but globMatchesPrefix(%q, %q) is false", pattern, s, pattern, prefix)
		}
	})
}
