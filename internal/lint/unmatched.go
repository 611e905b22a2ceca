package lint

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// errUnmatched is the cause of every *UnmatchedTarget.
var errUnmatched = errors.New("target matches no object of the input")

// UnmatchedTarget is a file section (a header and its entries, or a merge
// entry of a YAML patch file) whose target matched no object of the
// input: a dead patch, most often a misspelt kind or name.
type UnmatchedTarget struct {
	Pos    kpatch.Position
	Target kpatch.Target
	// Fatal makes it an error (--fail-unmatched) rather than a warning.
	Fatal bool
}

func (u *UnmatchedTarget) Error() string {
	severity := "warning: "
	if u.Fatal {
		severity = ""
	}
	return u.Pos.String() + ": " + severity + "target " + u.Target.String() + " matches no object of the input"
}

func (u *UnmatchedTarget) Unwrap() error { return errUnmatched }

// UnmatchedTargets returns, file by file in the order given and in the
// order of their lines, the sections and merge entries of the patches
// whose target matches none of the objects.
func UnmatchedTargets(patches []*kpatch.Patch, objects []kpatch.ObjectRef, fatal bool) []*UnmatchedTarget {
	byKind := make(map[string][]kpatch.ObjectRef)
	for _, o := range objects {
		kind := strings.ToLower(o.Kind)
		byKind[kind] = append(byKind[kind], o)
	}
	var found []*UnmatchedTarget
	for _, p := range patches {
		var inFile []*UnmatchedTarget
		check := func(t *kpatch.Target, line, col int) {
			candidates := byKind[strings.ToLower(t.Kind)]
			if strings.ContainsAny(t.Kind, "*?@") { // a kind glob or kind set
				candidates = objects
			}
			if !matchesAny(t, candidates) {
				pos := kpatch.Position{File: p.Name(), Line: line, Column: col}
				inFile = append(inFile, &UnmatchedTarget{Pos: pos, Target: *t, Fatal: fatal})
			}
		}
		f := p.File()
		for _, m := range f.Merges {
			check(&m.Target, m.Line, m.Col)
		}
		for _, s := range f.Sections {
			check(&s.Target, s.Line, s.Col)
		}
		slices.SortStableFunc(inFile, func(a, b *UnmatchedTarget) int {
			return cmp.Or(cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Column, b.Pos.Column))
		})
		found = append(found, inFile...)
	}
	return found
}

// matchesAny reports whether the target matches one of the objects.
func matchesAny(t *kpatch.Target, objects []kpatch.ObjectRef) bool {
	for i := range objects {
		if t.Matches(&objects[i]) {
			return true
		}
	}
	return false
}
