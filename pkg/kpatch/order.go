package kpatch

import (
	"cmp"
	"strings"

	"kpatch.dev/kpatch/pkg/specificity"
)

// Rank is how much one part of a target narrows what it matches
// (specificity.Rank).
type Rank = specificity.Rank

// The ranks of a target's part, from generic to specific.
const (
	RankAny     = specificity.Any
	RankGlob    = specificity.Glob
	RankLiteral = specificity.Literal
)

// Specificity ranks a target from generic to specific
// (specificity.Specificity).
type Specificity = specificity.Specificity

// Specificity returns how specific the target is.
func (t *Target) Specificity() Specificity {
	s := Specificity{Name: patternRank(t.Name, t.NameLiteral), Namespace: patternRank(t.Namespace, false), Kind: RankLiteral}
	if t.kindForm() != kindOne {
		s.Kind = RankGlob
	}
	return s
}

// patternRank ranks a name or namespace pattern; "" (no namespace) and a
// pattern of stars alone match anything.
func patternRank(pattern string, literal bool) Rank {
	switch {
	case literal:
		return RankLiteral
	case strings.Trim(pattern, "*") == "":
		return RankAny
	case isGlob(pattern):
		return RankGlob
	}
	return RankLiteral
}

// Specificity is the specificity of the file's least specific target:
// its place among the files of its layer. A file that mixes a generic
// and a specific header applies, whole, where its generic header does
// (files are atomic on an object, and their sections keep their order).
// A file without headers has the zero specificity. It is found once,
// when the file compiles.
func (p *Patch) Specificity() Specificity { return p.specificity }

// leastSpecific is the specificity of the file's least specific target.
func (p *Patch) leastSpecific() Specificity {
	var out Specificity
	first := true
	visit := func(t *Target) {
		if s := t.Specificity(); first || s.Compare(out) < 0 {
			out, first = s, false
		}
	}
	for _, m := range p.file.Merges {
		visit(&m.Target)
	}
	for _, s := range p.file.Sections {
		visit(&s.Target)
	}
	return out
}

// OrderKey is where a file applies among the files of a run: files apply
// in ascending order of their keys, compared field by field. It is a pure
// function of the files and where they come from, so that every replica
// of the webhook, and the CLI given the same files, computes the same
// order.
type OrderKey struct {
	// Tier orders whole sources of files before anything else; lower
	// tiers apply first. The admin registry and the CLI's files are tier
	// 0; a source that must apply before them (the registries of
	// tenants) takes a negative tier, so that an admin file always has
	// the last word.
	Tier int
	// Layer is the file's layer: the `# kpatch:layer: N` line of the
	// file, else its registry ConfigMap's label kpatch.dev/layer, else 0.
	Layer int
	// Specificity is the file's (Patch.Specificity): within a layer, a
	// more specific file applies after a more generic one.
	Specificity Specificity
	// Source and Key name the file in a registry: its ConfigMap's name
	// (with its namespace, for a source of several namespaces) and key.
	// Empty for files given on the command line.
	Source, Key string
	// Position is the file's place in the order it was given (the
	// command line, a directory's lexical order): the last tie-breaker.
	Position int
}

// Compare orders two keys: -1 when a applies before b, +1 after, 0 when
// they are the same key.
func (a OrderKey) Compare(b OrderKey) int {
	return cmp.Or(
		cmp.Compare(a.Tier, b.Tier),
		cmp.Compare(a.Layer, b.Layer),
		a.Specificity.Compare(b.Specificity),
		strings.Compare(a.Source, b.Source),
		strings.Compare(a.Key, b.Key),
		cmp.Compare(a.Position, b.Position),
	)
}

// SameLevel reports whether two keys are in one tier and layer: the files
// whose writes to one field can conflict.
func (a OrderKey) SameLevel(b OrderKey) bool { return a.Tier == b.Tier && a.Layer == b.Layer }
