package kpatch

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/distribution/reference"
)

// imageTexts are references and parts that the grammar's corners tell
// apart, and random texts over the characters references are made of.
func imageTexts() []string {
	texts := []string{
		"", "a", "A", "nginx", "nginx:1.25", "library/nginx", "ghcr.io/example/web:1.2.3", "Foo/bar", "foo/Bar",
		"localhost:5000/a", "localhost:5000", "host:", ":tag", "a:b/c", "a//b", "a/", "/a", "a.b", "a..b", "a__b", "a___b",
		"a-b", "a--b", "a-", "-a", "a_", "a._b", "[::1]:5000/x", "[::1]/x", "[]/x", "[::g]/x", "[::1]:/x", "a:01/b",
		"x.example.com:443/team/app:v1@sha256:" + strings.Repeat("a", 64), "app@sha256:" + strings.Repeat("A", 64),
		"app@sha256:" + strings.Repeat("a", 63), "app@sha512:" + strings.Repeat("a", 128), "app@md5:" + strings.Repeat("a", 32),
		"app:" + strings.Repeat("t", 128), "app:" + strings.Repeat("t", 129), "app:.x", "app:_x", "app:x.-_",
		strings.Repeat("a", 255), strings.Repeat("a", 256), "r.io/" + strings.Repeat("a", 250), "a-.b/c", "a.-b/c", "e-x.io/a",
		"sha256:" + strings.Repeat("f", 32), "a+b.c_d-e:" + strings.Repeat("0", 32), "a++b:" + strings.Repeat("0", 32), "1a:" + strings.Repeat("0", 32),
		"a:" + strings.Repeat("g", 32), "a:" + strings.Repeat("0", 31), "A9:" + strings.Repeat("F", 40), ".a:" + strings.Repeat("0", 32),
	}
	const alphabet = "ab0Z.-_:/@[]"
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		b := make([]byte, 1+rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	return texts
}

// TestImageGrammarMatchesReference holds the hand-written grammar to
// github.com/distribution/reference: whole references to Parse, parts to
// its anchored regular expressions.
func TestImageGrammarMatchesReference(t *testing.T) {
	anchored := func(re *regexp.Regexp) *regexp.Regexp { return regexp.MustCompile(`^(?:` + re.String() + `)$`) }
	tag, digest, domain := anchored(reference.TagRegexp), anchored(reference.DigestRegexp), anchored(reference.DomainRegexp)
	accepted := 0
	for _, s := range imageTexts() {
		_, err := reference.Parse(s)
		if isSimpleReference(s) {
			accepted++
			if err != nil {
				t.Errorf("%q: accepted by hand, reference.Parse: %v", s, err)
			}
		}
		if got := parseImage(s); (got == nil) != (err == nil) || got != nil && got.Error() != err.Error() {
			t.Errorf("%q: parseImage %v, reference.Parse %v", s, got, err)
		}
		r, _ := reference.Parse(s)
		_, tagged := r.(reference.Tagged)
		_, digested := r.(reference.Digested)
		for _, c := range []struct {
			name      string
			got, want bool
		}{
			{"tag", isTag(s), tag.MatchString(s)},
			{"digest", isDigestText(s), digest.MatchString(s)},
			{"domain", isDomain(s), domain.MatchString(s)},
			{"repository", isRepository(s), err == nil && !tagged && !digested},
		} {
			if c.got != c.want {
				t.Errorf("%q as %s: %v by hand, %v by the package", s, c.name, c.got, c.want)
			}
		}
	}
	if accepted < 100 {
		t.Fatalf("only %d references accepted by hand", accepted)
	}
}
