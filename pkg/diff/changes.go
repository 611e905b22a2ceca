package diff

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"kpatch.dev/kpatch/internal/listalign"
	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// ChangeKind is what one change of an object does.
type ChangeKind uint8

const (
	SetValue    ChangeKind = iota // set the value at path: a scalar, or a whole new value
	DeleteValue                   // remove what path addresses (it ends in [delete] or [delete=SEL])
	InsertItem                    // insert value as a new list item (path ends in an insertion)
)

// rebuildKind says what a set must remove first when it replaces a value
// rather than creating one.
type rebuildKind uint8

const (
	rebuildNone   rebuildKind = iota // nothing there: build the value
	rebuildDelete                    // another shape there: delete the field first
	rebuildClear                     // a list there: empty it first, then append the items
)

// Change is one step from a base object towards a target object, on the
// object as the steps before it left it. Paths are full paths from the
// object's root, without shorthand.
type Change struct {
	Kind  ChangeKind
	Path  kpatch.Path
	Value any
	// Old is what the change replaces or removes (the base value) and
	// Replaces marks a set where a value was, for kpatch explain.
	Old      any
	Replaces bool
	rebuild  rebuildKind
	// Item addresses an inserted item once it is in the list (a selector
	// by its key, or its index), for the entries of a .kpatch file that
	// build the item's own lists after it.
	Item kpatch.Segment
	// schema is the cursor at the value, for the twin checks of the
	// lists a .kpatch file builds item by item.
	schema schemaCursor
}

// objectDiff computes the changes that turn one object into another.
type objectDiff struct {
	object string // "Kind namespace/name", for messages
	// rebuild holds the locations (in the target, see loc) of the lists
	// to write whole, after a self-check showed that finer changes fail.
	rebuild map[string]bool
	changes []Change
	errs    []error
}

// ErrUnaddressable is a difference in a field that no path can spell.
var ErrUnaddressable = errors.New("no patch path can spell the field")

// Changes returns the changes that turn base into target; object
// names them in messages.
func Changes(object string, base, target map[string]any, rebuild map[string]bool) ([]Change, error) {
	apiVersion, _ := base["apiVersion"].(string)
	kind, _ := base["kind"].(string)
	d := &objectDiff{object: object, rebuild: rebuild}
	d.mapDiff(nil, "", cursorFor(apiVersion, kind), base, target)
	return d.changes, errors.Join(d.errs...)
}

// pathKey reports whether a path can spell a map key: not empty, no
// line break or other control character, no ${ (paths hold no
// variables).
func pathKey(k string) bool {
	return k != "" && !strings.Contains(k, "${") && !strings.ContainsFunc(k, unicode.IsControl)
}

// unaddressableKey returns a key of the two maps, whose values differ,
// that no path can spell.
func unaddressableKey(base, target map[string]any) (string, bool) {
	for _, m := range []map[string]any{base, target} {
		for k := range m {
			b, inBase := base[k]
			t, inTarget := target[k]
			if !pathKey(k) && (inBase != inTarget || !jsonvalue.Equal(b, t)) {
				return k, true
			}
		}
	}
	return "", false
}

// with returns path extended by segments, never sharing path's array.
func with(path kpatch.Path, segs ...kpatch.Segment) kpatch.Path {
	return append(path[:len(path):len(path)], segs...)
}

func fieldSegment(name string) kpatch.Segment {
	return kpatch.Segment{Kind: kpatch.Field, Name: name}
}

func indexSegment(i int) kpatch.Segment {
	return kpatch.Segment{Kind: kpatch.Index, Index: i, Name: strconv.Itoa(i)}
}

// locField extends a location (a JSON pointer into the target) by a key.
func locField(loc, name string) string {
	return loc + "/" + strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// value adds the changes that turn base into target at path.
func (d *objectDiff) value(path kpatch.Path, loc string, sc schemaCursor, base, target any) {
	if jsonvalue.Equal(base, target) {
		return
	}
	bm, bIsMap := base.(map[string]any)
	tm, tIsMap := target.(map[string]any)
	bl, bIsList := base.([]any)
	tl, tIsList := target.([]any)
	switch {
	case bIsMap && tIsMap:
		d.mapDiff(path, loc, sc, bm, tm)
	case bIsList && tIsList:
		d.listDiff(path, loc, sc, bl, tl)
	case listalign.ShapeOf(target) == listalign.ScalarShape || base == nil:
		d.changes = append(d.changes, Change{Kind: SetValue, Path: path, Value: target, Old: base, Replaces: true, schema: sc})
	default:
		d.changes = append(d.changes, Change{Kind: SetValue, Path: path, Value: target, Old: base, Replaces: true, rebuild: rebuildDelete, schema: sc})
	}
}

// mapDiff adds the changes between two maps, key by key in sorted order.
func (d *objectDiff) mapDiff(path kpatch.Path, loc string, sc schemaCursor, base, target map[string]any) {
	if k, ok := unaddressableKey(base, target); ok {
		if len(path) == 0 {
			d.errs = append(d.errs, fmt.Errorf("%s: the key %q: %w", d.object, k, ErrUnaddressable))
			return
		}
		// the map whole: a YAML patch file writes it
		d.changes = append(d.changes, Change{Kind: SetValue, Path: path, Value: target, Old: base, Replaces: true, rebuild: rebuildDelete, schema: sc})
		return
	}
	keys := make([]string, 0, len(target)+len(base))
	for k := range target {
		keys = append(keys, k)
	}
	for k := range base {
		if _, ok := target[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	// the keys' changes touch disjoint fields, so their order is free:
	// those that stay entries of this map's header come first, and the
	// ones that reach into list items after them
	var deep []Change
	for _, k := range keys {
		b, inBase := base[k]
		t, inTarget := target[k]
		p := with(path, fieldSegment(k))
		mark := len(d.changes)
		switch {
		case !inTarget:
			d.changes = append(d.changes, Change{Kind: DeleteValue, Path: with(p, kpatch.Segment{Kind: kpatch.Delete}), Old: b})
		case !inBase:
			d.changes = append(d.changes, Change{Kind: SetValue, Path: p, Value: t, schema: sc.field(k)})
		default:
			d.value(p, locField(loc, k), sc.field(k), b, t)
		}
		if !slices.ContainsFunc(d.changes[mark:], func(c Change) bool { return !shallow(c, len(path)) }) {
			continue
		}
		deep = append(deep, d.changes[mark:]...)
		d.changes = d.changes[:mark]
	}
	d.changes = append(d.changes, deep...)
}

// shallow reports whether a change stays an entry of the header at depth:
// no list item is addressed on its way, and no list of maps is built.
func shallow(c Change, depth int) bool {
	for _, seg := range c.Path[depth : len(c.Path)-1] {
		if seg.Kind == kpatch.Select || seg.Kind == kpatch.Index || seg.Kind == kpatch.All {
			return false
		}
	}
	if c.Kind == InsertItem && listalign.ShapeOf(c.Value) != listalign.ScalarShape {
		return false
	}
	return c.Kind != SetValue || !holdsMaps(c.Value, false)
}

// holdsMaps reports whether v holds a map inside a list (inList: v is an
// item of a list).
func holdsMaps(v any, inList bool) bool {
	switch x := v.(type) {
	case map[string]any:
		if inList {
			return true
		}
		for _, e := range x {
			if holdsMaps(e, false) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if holdsMaps(e, true) {
				return true
			}
		}
	}
	return false
}

// setList writes a list whole: a set that replaces the list base.
func (d *objectDiff) setList(path kpatch.Path, sc schemaCursor, base, target []any) {
	d.changes = append(d.changes, Change{Kind: SetValue, Path: path, Value: target, Old: base, Replaces: true, rebuild: rebuildClear, schema: sc})
}
