// Package specificity ranks the targets of registry files from generic to
// specific: within a layer, a file that targets every Deployment applies
// before one that targets a Deployment by name. Every file kind (patch
// files, replacements) ranks its targets with these types, so that their
// files take their places in one order.
package specificity

import (
	"cmp"
	"strings"
)

// Rank is how much one part of a target (its name, namespace or kind)
// narrows what it matches: any value, a glob, or one literal value.
type Rank uint8

// The ranks of a target's part, from generic to specific.
const (
	// Any is a part that matches every value: a name `*`, no namespace
	// (or `*/`).
	Any Rank = iota
	// Glob is a glob that matches some values: `web-*`, `prod-*/`, a kind
	// glob (`*Set`) or a kind set (`@workload`).
	Glob
	// Literal is one value: `web`, `prod/`, `deployment`.
	Literal
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
	case Glob:
		b.WriteString("ns*/")
	case Literal:
		b.WriteString("ns/")
	}
	b.WriteString("kind")
	if s.Kind != Literal {
		b.WriteByte('*')
	}
	switch s.Name {
	case Any:
		b.WriteString(".*")
	case Glob:
		b.WriteString(".name*")
	default:
		b.WriteString(".name")
	}
	return b.String()
}
