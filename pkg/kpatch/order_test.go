package kpatch

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// targetOf parses a header's target.
func targetOf(t *testing.T, text string) *Target {
	t.Helper()
	f, err := ParseString("f", "["+text+"]\n")
	if err != nil {
		t.Fatal(err)
	}
	return &f.Sections[0].Target
}

// TestSpecificityOrder holds the ranks to the order docs/layers.md gives,
// from generic to specific: each target is strictly less specific than
// the next.
func TestSpecificityOrder(t *testing.T) {
	chain := []string{
		"@workload.*",
		"deployment.*",
		"prod-*/deployment.*",
		"prod/@workload.*",
		"prod/deployment.*",
		"@workload.web-*",
		"deployment.web-*",
		"deployment.*-canary",
		"prod/deployment.web-*",
		"@workload.web",
		"deployment.web",
		"prod-*/deployment.web",
		"prod/*Set.web",
		"prod/deployment.web",
	}
	for i := 1; i < len(chain); i++ {
		a, b := targetOf(t, chain[i-1]).Specificity(), targetOf(t, chain[i]).Specificity()
		c := a.Compare(b)
		if chain[i] == "deployment.*-canary" { // a glob, as web-*: the same rank
			if c != 0 {
				t.Errorf("%s (%v) and %s (%v) should rank alike", chain[i-1], a, chain[i], b)
			}
			continue
		}
		if c >= 0 || a.Level() >= b.Level() {
			t.Errorf("%s (%v, %d) should be less specific than %s (%v, %d)", chain[i-1], a, a.Level(), chain[i], b, b.Level())
		}
	}
	same := [][2]string{
		{"deployment.*", "*/deployment.*"},
		{"deployment(apps).web", "deployment.web"},
		{"deployment(apps/v1).web", "Deployment.web"},
		{"deployment.[web.v2]", "deployment.web"},
		{"*.*", "@workload.*"},
		{"*Set.*", "@workload.*"},
	}
	for _, p := range same {
		if c := targetOf(t, p[0]).Specificity().Compare(targetOf(t, p[1]).Specificity()); c != 0 {
			t.Errorf("%s and %s should rank alike, compare %d", p[0], p[1], c)
		}
	}
}

func TestSpecificityString(t *testing.T) {
	for target, want := range map[string]string{
		"deployment.*":          "kind.*",
		"deployment.web-*":      "kind.name*",
		"deployment.web":        "kind.name",
		"prod/deployment.web":   "ns/kind.name",
		"prod-*/@workload.w?b":  "ns*/kind*.name*",
		"*/deployment(apps).*":  "kind.*",
		"*Set.web":              "kind*.name",
		"configmap.[app.v1.cm]": "kind.name",
	} {
		if got := targetOf(t, target).Specificity().String(); got != want {
			t.Errorf("%s: %q, want %q", target, got, want)
		}
	}
}

// TestPatchSpecificity: a file ranks by its least specific target.
func TestPatchSpecificity(t *testing.T) {
	p := mustPatch(t, "f.kpatch", "[prod/deployment.web]\nreplicas: 1\n[deployment.web-*]\nreplicas: 2\n[configmap.c]\ndata.a: b\n")
	if got, want := p.Specificity(), targetOf(t, "deployment.web-*").Specificity(); got != want {
		t.Errorf("file specificity %v, want %v", got, want)
	}
	y := mustPatch(t, "f.yaml", "- target: deployment.web\n  patch: {replicas: 1}\n- target: {kind: Deployment}\n  type: strategic\n  patch: {spec: {replicas: 2}}\n")
	if got := y.Specificity(); got.String() != "kind.*" {
		t.Errorf("YAML file specificity %v, want kind.*", got)
	}
	if got := mustPatch(t, "e.kpatch", "# nothing\n").Specificity(); got != (Specificity{}) {
		t.Errorf("empty file: %v", got)
	}
}

// TestOrderKeyCompare orders keys field by field: tier, layer,
// specificity, source, key, position.
func TestOrderKeyCompare(t *testing.T) {
	generic, specific := Specificity{Kind: RankLiteral}, Specificity{Name: RankLiteral, Kind: RankLiteral}
	ordered := []OrderKey{
		{Tier: -1, Layer: 9, Specificity: specific, Source: "z"},
		{Layer: -2, Specificity: specific},
		{Layer: 0, Specificity: generic, Source: "z-cm", Key: "z.kpatch"},
		{Layer: 0, Specificity: specific, Source: "a-cm", Key: "b.kpatch"},
		{Layer: 0, Specificity: specific, Source: "b-cm", Key: "a.kpatch"},
		{Layer: 0, Specificity: specific, Source: "b-cm", Key: "b.kpatch"},
		{Layer: 0, Specificity: specific, Source: "b-cm", Key: "b.kpatch", Position: 1},
		{Layer: 1, Specificity: generic, Source: "a-cm"},
	}
	for i := range ordered {
		for j := range ordered {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := ordered[i].Compare(ordered[j]); got != want {
				t.Errorf("Compare(%v, %v) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	// a pure function of the keys: any input order sorts the same
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		shuffled := slices.Clone(ordered)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		slices.SortFunc(shuffled, OrderKey.Compare)
		if !slices.Equal(shuffled, ordered) {
			t.Fatalf("sorted to %v", shuffled)
		}
	}
}

func TestFileLayer(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      FileLayer
	}{
		{"a.kpatch", "# kpatch:layer: 2\n[deployment.web]\nreplicas: 1\n", FileLayer{Value: 2, Set: true, Line: 1}},
		{"a.kpatch", "\xef\xbb\xbf# team defaults\n\n#kpatch:layer:-1\r\n[deployment.web]\nreplicas: 1\n", FileLayer{Value: -1, Set: true, Line: 3}},
		{"a.kpatch", "[deployment.web]\nreplicas: 1\n", FileLayer{}},
		{"a.yaml", "# kpatch:layer: 10\n- target: deployment.web\n  patch: {replicas: 1}\n", FileLayer{Value: 10, Set: true, Line: 1}},
		{"a.yaml", "# kpatch:layer: 3\n", FileLayer{Value: 3, Set: true, Line: 1}},
		{"a.yaml", "- metadata: {layer: 4}\n- target: deployment.web\n  patch: {replicas: 1}\n", FileLayer{Value: 4, Set: true, Line: 1}},
	} {
		p := mustPatch(t, c.name, c.src)
		if got := p.Layer(); got != c.want {
			t.Errorf("%q: %+v, want %+v", c.src, got, c.want)
		}
	}
}

func TestFileLayerErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"a.kpatch", "# kpatch:layer: high\n[deployment.web]\nreplicas: 1\n", `a.kpatch:1:17: layer: expected an integer, not "high"`},
		{"a.kpatch", "# kpatch:layer: 1.5\n[deployment.web]\nreplicas: 1\n", `a.kpatch:1:17: layer: expected an integer, not "1.5"`},
		{"a.kpatch", "# kpatch:layer: 1\n# kpatch:layer: 2\n[deployment.web]\nreplicas: 1\n", "a.kpatch:2:17: layer: given twice; first at line 1"},
		{"a.yaml", "# kpatch:layer:\n- target: deployment.web\n  patch: {replicas: 1}\n", `a.yaml:1:3: kpatch:layer: wants an integer, not ""`},
		{"a.yaml", "# kpatch:layer: 1\n- metadata: {layer: 2}\n", `a.yaml:2:21: layer: given twice; first at line 1`},
		{"a.kpatch", "[deployment.web]\n# kpatch:layer: 2\nreplicas: 1\n", "a.kpatch:2:1: file metadata (# kpatch:...) goes before the first header"},
		{"a.kpatch", "# kpatch:layer: x\n[deployment.web]\nreplicas\n", "a.kpatch:1:17: layer: expected an integer"},
	} {
		_, err := ParseAndCompile(c.name, []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: %v, want %s", c.src, err, c.want)
		}
	}
}

// TestConflictsInOrder: files of a later layer override the earlier
// layers' without a conflict; within a layer, the same target still
// conflicts, and a more specific one does not.
func TestConflictsInOrder(t *testing.T) {
	base := mustPatch(t, "base", "[deployment.*]\nreplicas: 1\n")
	team := mustPatch(t, "team", "[deployment.web]\nreplicas: 2\n")
	twin := mustPatch(t, "twin", "[deployment.web]\nreplicas: 3\n")
	prod := mustPatch(t, "prod", "[deployment.*]\nreplicas: 4\n")
	patches := []*Patch{base, team, twin, prod}
	keys := []OrderKey{{Layer: 0}, {Layer: 0}, {Layer: 0}, {Layer: 1}}
	first, total := ConflictsInOrder(patches, keys, -1)
	if total != 1 || len(first) != 1 || first[0].Earlier.File != "team" || first[0].Later.File != "twin" {
		t.Fatalf("got %d conflicts %v, want team against twin only", total, first)
	}
	// without layers, prod's generic write overrides the specific ones:
	// conflicts with team and twin (base is as generic: also one)
	if _, total := ConflictsInOrder(patches, nil, -1); total != 4 {
		t.Errorf("one layer: %d conflicts, want 4", total)
	}
}
