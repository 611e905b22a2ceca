package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// shape is what a schema node holds.
type shape uint8

const (
	shapeAny    shape = iota // anything: free-form
	shapeObject              // a map of known fields
	shapeMap                 // a map of any keys, one type of value
	shapeList
	shapeScalar
	// shapeOpaque is a type that decodes itself (a quantity, a time, an
	// int-or-string): its value is read whole, never walked.
	shapeOpaque
)

// node is a place in a schema: a Go type of k8s.io/api, or a node of a
// CRD's structural schema.
type node interface {
	shape() shape
	// field is the node of a field of an object; false when the object
	// has no such field.
	field(name string) (node, bool)
	// fieldNames are the fields of an object, for suggestions.
	fieldNames() []string
	// required are the fields an object must hold.
	required() []string
	// elem is the node of a map's values and a list's items.
	elem() node
	// check is the problem of a value of a scalar or opaque node, "" when
	// the API server takes it.
	check(v any) string
	// describe names what the node holds, for messages.
	describe() string
}

// uniqueItems is a list node whose items the API server holds unique
// (a CRD's list of x-kubernetes-list-type map or set).
type uniqueItems interface {
	// duplicate is the problem of two items alike, "" when there is none.
	duplicate(items []any) string
}

// object checks the change of a whole object.
func (w *walker) object(before, after map[string]any, root node) error {
	var b any
	if before != nil {
		b = before
	}
	return w.value(b, after, root)
}

// value checks the change from before to after at node n.
func (w *walker) value(before, after any, n node) error {
	if same(before, after) {
		return nil
	}
	switch n.shape() {
	case shapeAny:
		return nil
	case shapeOpaque:
		if msg := n.check(after); msg != "" {
			return w.fail("%s", msg)
		}
		return nil
	case shapeScalar:
		if after == nil {
			return nil // null decodes into any field: the field is unset
		}
		switch after.(type) {
		case map[string]any, []any:
			return w.fail("the field is %s, not %s", n.describe(), describeValue(after))
		}
		if msg := n.check(after); msg != "" {
			return w.fail("%s", msg)
		}
		return nil
	case shapeObject, shapeMap:
		a, ok := after.(map[string]any)
		if !ok {
			if after == nil {
				return nil
			}
			return w.fail("the field is %s, not %s", n.describe(), describeValue(after))
		}
		b, _ := before.(map[string]any)
		return w.fields(b, a, n)
	case shapeList:
		a, ok := after.([]any)
		if !ok {
			if after == nil {
				return nil
			}
			return w.fail("the field is %s, not %s", n.describe(), describeValue(after))
		}
		b, _ := before.([]any)
		if u, ok := n.(uniqueItems); ok {
			// only duplicates the files made: the API server holds an
			// update to unique items only when the stored object has
			// them; this asks it of each list before the files, which is
			// stricter where another list of the object was duplicated
			if msg := u.duplicate(a); msg != "" && u.duplicate(b) == "" {
				return w.fail("%s", msg)
			}
		}
		return w.items(b, a, n)
	}
	return nil
}

// fields checks the keys of a map that changed, in the order of their
// names when the walk is ordered (else the map's).
func (w *walker) fields(b, a map[string]any, n node) error {
	start := len(w.keys)
	defer func() { w.keys = w.keys[:start] }()
	for k, v := range a {
		if old, ok := b[k]; !ok || !same(old, v) {
			w.keys = append(w.keys, change{key: k, before: old, after: v})
		}
	}
	end := len(w.keys)
	if start == end && b != nil && len(b) == len(a) {
		return nil // the same fields, the same values
	}
	if cm, ok := n.(checkedMap); ok {
		if msg := cm.mapProblem(a); msg != "" && cm.mapProblem(b) == "" {
			return w.fail("%s", msg)
		}
	}
	if n.shape() == shapeObject {
		for _, r := range n.required() {
			if _, ok := a[r]; !ok {
				return w.fail("the required field %s is missing", strconv.Quote(r))
			}
		}
	}
	if w.ordered {
		slices.SortFunc(w.keys[start:end], func(x, y change) int { return strings.Compare(x.key, y.key) })
	}
	for i := start; i < end; i++ {
		// w.keys[start:end] stays as it is while deeper levels push
		// theirs after it, even when that moves the stack
		c := w.keys[i]
		k := c.key
		var child node
		if n.shape() == shapeMap {
			child = n.elem()
			if cm, ok := n.(checkedMap); ok {
				if msg := cm.keyProblem(k); msg != "" {
					w.path = append(w.path, step{key: k})
					return w.fail("%s", msg)
				}
			}
		} else {
			var ok bool
			if child, ok = n.field(k); !ok {
				w.path = append(w.path, step{key: k})
				return w.fail("%s has no field %s%s", n.describe(), strconv.Quote(k), kpatch.DidYouMean(k, n.fieldNames()))
			}
		}
		w.path = append(w.path, step{key: k})
		if err := w.value(c.before, c.after, child); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
	return nil
}

// items checks the items of a list that changed: an item the same as the
// one at its index before, or, when the list grew or shrank, one of the
// maps and lists the list held before (moved by an insertion or a
// removal), is not read.
func (w *walker) items(b, a []any, n node) error {
	start, gathered := len(w.held), false
	defer func() { w.held = w.held[:start] }()
	for i, item := range a {
		var old any
		if i < len(b) {
			old = b[i]
			if same(old, item) {
				continue
			}
		}
		if p := pointer(item); p != nil && len(b) > 0 && len(a) != len(b) {
			if !gathered {
				gathered = true
				for _, o := range b {
					if q := pointer(o); q != nil {
						w.held = append(w.held, uintptr(q))
					}
				}
				slices.Sort(w.held[start:])
			}
			if _, found := slices.BinarySearch(w.held[start:], uintptr(p)); found {
				continue
			}
		}
		w.path = append(w.path, step{index: i, item: true})
		if err := w.value(old, item, n.elem()); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
	return nil
}

// same reports whether after is before as it was: the same map or list
// in memory (the engine shares what it did not change), or an equal
// scalar. Maps and lists are never read.
func same(before, after any) bool {
	switch a := after.(type) {
	case map[string]any:
		b, ok := before.(map[string]any)
		return ok && jsonvalue.SameMap(a, b)
	case []any:
		b, ok := before.([]any)
		return ok && jsonvalue.SameList(a, b)
	}
	switch before.(type) {
	case map[string]any, []any:
		return false
	}
	return jsonvalue.Equal(before, after)
}

// pointer is the identity of a non-empty map or list, nil for anything
// else.
func pointer(v any) unsafe.Pointer {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			return jsonvalue.MapPointer(x)
		}
	case []any:
		if len(x) > 0 {
			return jsonvalue.ListPointer(x)
		}
	}
	return nil
}

// describeValue names a value in a message: a string quoted, a number
// or boolean as JSON writes it, maps and lists by their shape.
func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		return "the string " + strconv.Quote(x)
	case bool:
		return "the boolean " + strconv.FormatBool(x)
	case nil:
		return "null"
	case map[string]any:
		return "a map"
	case []any:
		return "a list"
	}
	if text, ok := jsonvalue.Text(v); ok && jsonvalue.IsNumber(v) {
		return "the number " + text
	}
	return fmt.Sprintf("%v", v)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
