package specificity

import "testing"

// TestOrder: name first, then namespace, then kind; Level orders as
// Compare does, and String names the shape.
func TestOrder(t *testing.T) {
	chain := []struct {
		s    Specificity
		text string
	}{
		{Specificity{}, "kind*.*"},
		{Specificity{Kind: Literal}, "kind.*"},
		{Specificity{Namespace: Glob, Kind: Literal}, "ns*/kind.*"},
		{Specificity{Namespace: Literal, Kind: Literal}, "ns/kind.*"},
		{Specificity{Name: Glob, Kind: Literal}, "kind.name*"},
		{Specificity{Name: Literal, Kind: Glob}, "kind*.name"},
		{Specificity{Name: Literal, Kind: Literal}, "kind.name"},
		{Specificity{Name: Literal, Namespace: Literal, Kind: Literal}, "ns/kind.name"},
	}
	for i, c := range chain {
		if got := c.s.String(); got != c.text {
			t.Errorf("%#v.String() = %q, want %q", c.s, got, c.text)
		}
		if c.s.Compare(c.s) != 0 {
			t.Errorf("%s is not as specific as itself", c.text)
		}
		if i == 0 {
			continue
		}
		a, b := chain[i-1].s, c.s
		if a.Compare(b) >= 0 || b.Compare(a) <= 0 || a.Level() >= b.Level() {
			t.Errorf("%s (level %d) should be less specific than %s (level %d)", chain[i-1].text, a.Level(), c.text, b.Level())
		}
	}
	if top := chain[len(chain)-1].s.Level(); top != 26 {
		t.Errorf("the most specific level is %d, want 26", top)
	}
}
