package kpatch

import (
	"cmp"
	"strings"
)

// Rank is how much one part of a target (its name, namespace or kind)
// narrows what it matches: any value, a glob, or one literal value.
type Rank uint8

// The ranks of a target's part, from generic to specific.
const (
	// RankAny is a part that matches every value: a name `*`, no
	// namespace (or `*/`).
	RankAny Rank = iota
	// RankGlob is a glob that matches some values: `web-*`, `prod-*/`, a
	// kind glob (`*Set`) or a kind set (`@workload`).
	RankGlob
	// RankLiteral is one value: `web`, `prod/`, `deployment`.
	RankLiteral
)

// Specificity ranks a target from generic to specific: by its name
// first, then its namespace, then its kind, each any < glob < literal.
// So `deployment.*` < `prod/deployment.*` < `deployment.web-*` <
// `deployment.web` < `prod/deployment.web`, and `@workload.web` <
// `deployment.web`. An API group does not count: it tells kinds apart,
// it does not narrow a kind's objects. The zero value is the least
// specific.
type Specificity struct {
	Name, Namespace, Kind Rank
}

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

// Compare returns -1, 0 or +1 as s is less specific than, as specific
// as, or more specific than o.
func (s Specificity) Compare(o Specificity) int {
	return cmp.Or(cmp.Compare(s.Name, o.Name), cmp.Compare(s.Namespace, o.Namespace), cmp.Compare(s.Kind, o.Kind))
}

// Level is the specificity as one number, 0 (kind*.*) to 26
// (ns/kind.name): 9×name + 3×namespace + kind. Levels compare as
// specificities do.
func (s Specificity) Level() int { return 9*int(s.Name) + 3*int(s.Namespace) + int(s.Kind) }

// String writes the specificity as the shape of the targets that have
// it: `kind.*`, `kind.name*`, `kind.name`, `ns/kind.name`, `ns*/kind*.name`
// (`ns*`, `kind*` and `name*` stand for globs, `kind*` for kind sets too).
func (s Specificity) String() string {
	var b strings.Builder
	switch s.Namespace {
	case RankGlob:
		b.WriteString("ns*/")
	case RankLiteral:
		b.WriteString("ns/")
	}
	b.WriteString("kind")
	if s.Kind != RankLiteral {
		b.WriteByte('*')
	}
	switch s.Name {
	case RankAny:
		b.WriteString(".*")
	case RankGlob:
		b.WriteString(".name*")
	default:
		b.WriteString(".name")
	}
	return b.String()
}

// Specificity is the specificity of the file's least specific target:
// its place among the files of its layer. A file that mixes a generic
// and a specific header applies, whole, where its generic header does
// (files are atomic on an object, and their sections keep their order).
// A file without headers has the zero specificity.
func (p *Patch) Specificity() Specificity {
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
