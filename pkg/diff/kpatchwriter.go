package diff

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"kpatch.dev/kpatch/internal/listalign"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// ErrNeedsYAML is a change that a .kpatch file, whose values are
// scalars, cannot write: it needs a YAML patch file (kpatch diff -o yaml).
var ErrNeedsYAML = errors.New("a .kpatch file cannot write this change; use -o yaml for a YAML patch file")

// structureError is a change of one object that a .kpatch file cannot
// write, with where and why.
type structureError struct {
	Object string // "Kind namespace/name"
	Path   kpatch.Path
	Reason string
}

func (e *structureError) Error() string {
	return fmt.Sprintf("%s: %s: %s; a .kpatch file cannot write it (use -o yaml for a YAML patch file)", e.Object, e.Path, e.Reason)
}

func (e *structureError) Unwrap() error { return ErrNeedsYAML }

// kpatchSection is a section of a .kpatch file before shorthand: a
// header path from the object's root, and entries relative to it.
type kpatchSection struct {
	path      kpatch.Path
	entries   []*kpatch.Entry
	insertion bool
}

// kpatchLowering turns the changes of one object into .kpatch sections:
// scalars become entries, new maps are built entry by entry, new list
// items by insertion headers whose entries build them (and whose own
// lists of maps follow in sections that address the new item).
type kpatchLowering struct {
	object   string
	sections []*kpatchSection
	errs     []error
}

func (l *kpatchLowering) fail(path kpatch.Path, reason string) {
	l.errs = append(l.errs, &structureError{Object: l.object, Path: slices.Clone(path), Reason: reason})
}

// entry adds `path: raw` to the section of its header, a new one unless
// the last section has the same header.
func (l *kpatchLowering) entry(path kpatch.Path, raw string) {
	split := headerSplit(path)
	hdr, key := path[:split], path[split:]
	if n := len(l.sections); n > 0 && !l.sections[n-1].insertion && samePath(l.sections[n-1].path, hdr) {
		l.sections[n-1].entries = append(l.sections[n-1].entries, &kpatch.Entry{Key: key, Value: kpatch.Value{Raw: raw}})
		return
	}
	l.sections = append(l.sections, &kpatchSection{path: hdr, entries: []*kpatch.Entry{{Key: key, Value: kpatch.Value{Raw: raw}}}})
}

// headerSplit returns where a header ends in an entry's full path: after
// the last list item selector (k=v, an index) that a field follows, so
// that the entries of one item share a header.
func headerSplit(path kpatch.Path) int {
	for i := len(path) - 2; i >= 0; i-- {
		if (path[i].Kind == kpatch.Select || path[i].Kind == kpatch.Index) && path[i+1].Kind == kpatch.Field {
			return i + 1
		}
	}
	return 0
}

func samePath(a, b kpatch.Path) bool {
	return a.String() == b.String()
}

// lower adds the sections of one change.
func (l *kpatchLowering) lower(c *Change) {
	switch c.Kind {
	case DeleteValue:
		l.entry(c.Path, "")
	case InsertItem:
		l.insert(c.Path, c.Item, c.schema, c.Value)
	case SetValue:
		switch c.rebuild {
		case rebuildDelete:
			l.entry(with(c.Path, kpatch.Segment{Kind: kpatch.Delete}), "")
		case rebuildClear:
			l.entry(with(c.Path, kpatch.Segment{Kind: kpatch.All}, kpatch.Segment{Kind: kpatch.Delete}), "")
		}
		l.build(c.Path, c.schema, c.Value, c.rebuild == rebuildClear)
	}
}

// build adds the entries that create value at path, where nothing is (or
// an empty list is, when cleared).
func (l *kpatchLowering) build(path kpatch.Path, sc schemaCursor, value any, cleared bool) {
	switch v := value.(type) {
	case map[string]any:
		if len(v) == 0 {
			l.fail(path, "an empty map")
			return
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if !pathKey(k) {
				l.fail(path, fmt.Sprintf("the key %q, which no path can spell", k))
				return
			}
			l.build(with(path, fieldSegment(k)), sc.field(k), v[k], false)
		}
	case []any:
		l.buildList(path, sc, v, cleared)
	default:
		l.entry(path, kpatchScalar(v))
	}
}

// buildList appends the items of a new list one by one.
func (l *kpatchLowering) buildList(path kpatch.Path, sc schemaCursor, items []any, cleared bool) {
	switch {
	case len(items) == 0 && cleared:
		return
	case len(items) == 0:
		l.fail(path, "an empty list")
		return
	case hasTwins(items, sc.mergeKey):
		l.fail(path, "a list whose items cannot be appended one by one (two of them are equal or share a name or merge key)")
		return
	}
	key := listalign.IdentityKey(sc.mergeKey, items, items)
	for i, it := range items {
		sel := indexSegment(i)
		if key != "" {
			k, _ := listalign.KeyText(it, key)
			sel = selectSegment(kpatch.Select, key, k)
		}
		l.insert(with(path, kpatch.Segment{Kind: kpatch.Append}), sel, sc.item(), it)
	}
}

// insert adds a new list item: a scalar as `path: value`, a map as an
// insertion header whose entries build it, followed by the sections that
// build its lists of maps, addressed through sel.
func (l *kpatchLowering) insert(path kpatch.Path, sel kpatch.Segment, sc schemaCursor, item any) {
	m, isMap := item.(map[string]any)
	switch {
	case listalign.ShapeOf(item) == listalign.ScalarShape:
		l.entry(path, kpatchScalar(item))
		return
	case !isMap:
		l.fail(path, "a list item that is a list")
		return
	}
	s := &kpatchSection{path: path, insertion: true}
	var later []func()
	itemPath := with(path[:len(path)-1], sel)
	l.itemEntries(s, nil, itemPath, sc, m, &later)
	if len(s.entries) == 0 {
		l.fail(path, "a new item without a scalar field")
		return
	}
	if _, named := m["name"].(string); len(later) > 0 && !named {
		// run again, the header would build the item without its lists,
		// find no twin for it, and add it once more
		l.fail(path, "a new item without a name whose lists of maps need sections of their own")
		return
	}
	l.sections = append(l.sections, s)
	for _, f := range later {
		f()
	}
}

// itemEntries adds to s the entries that build the map m at rel in a new
// item: scalars and lists of scalars; lists of maps are left to later,
// as sections of their own below the item.
func (l *kpatchLowering) itemEntries(s *kpatchSection, rel kpatch.Path, itemPath kpatch.Path, sc schemaCursor, m map[string]any, later *[]func()) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !pathKey(k) {
			l.fail(slices.Concat(itemPath, rel), fmt.Sprintf("the key %q, which no path can spell", k))
			continue
		}
		p, fsc := with(rel, fieldSegment(k)), sc.field(k)
		switch v := m[k].(type) {
		case map[string]any:
			if len(v) == 0 {
				l.fail(slices.Concat(itemPath, p), "an empty map")
				continue
			}
			l.itemEntries(s, p, itemPath, fsc, v, later)
		case []any:
			if len(v) > 0 && !slices.ContainsFunc(v, func(x any) bool { return listalign.ShapeOf(x) != listalign.ScalarShape }) && !hasTwins(v, "") {
				for _, x := range v {
					s.entries = append(s.entries, &kpatch.Entry{Key: with(p, kpatch.Segment{Kind: kpatch.Append}), Value: kpatch.Value{Raw: kpatchScalar(x)}})
				}
				continue
			}
			full := slices.Concat(itemPath, p)
			*later = append(*later, func() { l.buildList(full, fsc, v, false) })
		default:
			s.entries = append(s.entries, &kpatch.Entry{Key: p, Value: kpatch.Value{Raw: kpatchScalar(v)}})
		}
	}
}
