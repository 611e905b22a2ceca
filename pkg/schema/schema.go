// Package schema holds the result of the files to what the API server
// decodes for its kind: the fields the files changed must exist, hold
// values of their type (a string where a string goes, an integer in range
// where an integer goes, a quantity the API server parses), and a field
// with a closed set of values must hold one of them.
//
// The kinds of k8s.io/api are checked against their Go types, as the API
// server decodes them strictly; custom resources against the structural
// schema of their CustomResourceDefinition (CRDs). Only what changed
// between the object before and after the files is read, so the cost of
// a check follows the size of the change, not of the object.
package schema

import (
	"strconv"
	"strings"
	"sync"

	"kpatch.dev/kpatch/pkg/fileerr"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// ErrRefused is the cause of every problem Check reports: the API server
// would refuse the object.
var ErrRefused = fileerr.ErrRefused

// FieldError is a value the API server would refuse, at Field (the path
// in the object, keys joined by dots, list items by [index]).
type FieldError struct {
	Field  string
	Reason string
}

// Error names the field and the reason.
func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// Unwrap returns ErrRefused.
func (e *FieldError) Unwrap() error { return ErrRefused }

// Checker checks the changes of objects against the schemas of their
// kinds: the built-in kinds always, custom resources when CRDs returns
// schemas for them. Its zero value checks the built-in kinds only. It is
// safe for concurrent use.
type Checker struct {
	// CRDs, if set, returns the current schemas of custom resources; it
	// is read once per Check.
	CRDs func() *CRDs
}

// Check returns the first change from before to after that the API
// server would refuse, as a *FieldError, or nil. before is the object as
// it was, after as the files left it; values the files did not change
// are not read. An object of a kind without a schema (a custom resource
// whose CRD is not known) is held to an object's metadata only.
func (c *Checker) Check(before, after map[string]any) error {
	apiVersion, _ := after["apiVersion"].(string)
	kind, _ := after["kind"].(string)
	root := builtin(apiVersion, kind)
	if root == nil && c.CRDs != nil {
		if crds := c.CRDs(); crds != nil {
			root = crds.root(apiVersion, kind)
		}
	}
	if root == nil {
		root = anyResource // its metadata, which every resource has
	}
	if av, _ := before["apiVersion"].(string); av != apiVersion {
		before = nil // another kind: every field is new to it
	} else if k, _ := before["kind"].(string); k != kind {
		before = nil
	}
	w := walkers.Get().(*walker)
	err := w.object(before, after, root)
	w.reset()
	if err != nil {
		// the walk took the changed keys of each map in the map's order,
		// which is random: again in the order of their names, for the
		// problem to report, the same on every call
		w.ordered = true
		err = w.object(before, after, root)
		w.reset()
	}
	walkers.Put(w)
	if err != nil {
		return err
	}
	return nil
}

// Schemas returns what types the files' writes into custom resources by
// the current CRDs (kpatch.ApplyOptions.Schemas), or nil when the
// checker reads none.
func (c *Checker) Schemas() func(apiVersion, kind string) *kpatch.CustomResourceSchema {
	if c.CRDs == nil {
		return nil
	}
	return c.schema
}

func (c *Checker) schema(apiVersion, kind string) *kpatch.CustomResourceSchema {
	if crds := c.CRDs(); crds != nil {
		return crds.Schema(apiVersion, kind)
	}
	return nil
}

// walker walks a change and its schema together, keeping the path for
// messages. Its slices are stacks that each level of the walk pushes
// onto and pops, so that a walker reused from walkers checks an object
// without allocating for them.
type walker struct {
	path []step // the keys and list items down to the value walked
	// keys holds, level by level, the keys of the maps being walked that
	// changed, with their values; sorted when ordered.
	keys []change
	// ordered walks the changed keys of a map in the order of their
	// names, as a check that found a problem does again to report the
	// first; a check that finds none (most) walks them unsorted.
	ordered bool
	// held holds, level by level, the maps and lists an item of a list
	// that grew or shrank may have been moved from, sorted.
	held []uintptr
}

// change is a key of a map and its value before and after.
type change struct {
	key           string
	before, after any
}

// step is one step of a path: a key, or the index of a list item when
// item is set.
type step struct {
	key   string
	index int
	item  bool
}

// walkers keeps walkers between checks; reset empties one first.
var walkers = sync.Pool{New: func() any { return new(walker) }}

// reset forgets the keys and the path of the last walk, so that a kept
// walker holds no string of an object.
func (w *walker) reset() {
	clear(w.path[:cap(w.path)])
	clear(w.keys[:cap(w.keys)])
	w.path, w.keys, w.held = w.path[:0], w.keys[:0], w.held[:0]
	w.ordered = false
}

func (w *walker) fail(format string, args ...any) *FieldError {
	return &FieldError{Field: fieldText(w.path), Reason: sprintf(format, args...)}
}

// fieldText prints a path: keys joined by dots, indexes in brackets.
func fieldText(path []step) string {
	var b strings.Builder
	for i, p := range path {
		switch {
		case p.item:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(p.index))
			b.WriteByte(']')
		case i > 0:
			b.WriteByte('.')
			fallthrough
		default:
			b.WriteString(p.key)
		}
	}
	return b.String()
}
