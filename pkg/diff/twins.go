package diff

import (
	"kpatch.dev/kpatch/internal/listalign"
)

// twinIndex holds the items of a list as the engine's insertions see
// them. An insertion updates, instead of adding its item, an item that
// is equal to it or has the same name; the engine may also identify the
// items of a list by its merge key. meets is the union of the three, so
// that a diff never relies on an insertion that an engine might take for
// an update.
type twinIndex struct {
	mergeKey string
	values   map[string]bool // the JSON of every item
	names    map[string]bool
	keys     map[string]bool // merge key values
}

func newTwinIndex(mergeKey string) *twinIndex {
	if mergeKey == "name" {
		mergeKey = ""
	}
	return &twinIndex{mergeKey: mergeKey, values: map[string]bool{}, names: map[string]bool{}, keys: map[string]bool{}}
}

// add records an item of the list.
func (x *twinIndex) add(item any) {
	x.values[listalign.ItemKeys([]any{item})[0]] = true
	if n, ok := listalign.KeyText(item, "name"); ok {
		x.names[n] = true
	}
	if k, ok := listalign.KeyText(item, x.mergeKey); ok && x.mergeKey != "" {
		x.keys[k] = true
	}
}

// meets reports whether an item could be the twin of one recorded.
func (x *twinIndex) meets(item any) bool {
	if x.values[listalign.ItemKeys([]any{item})[0]] {
		return true
	}
	if n, ok := listalign.KeyText(item, "name"); ok && x.names[n] {
		return true
	}
	k, ok := listalign.KeyText(item, x.mergeKey)
	return ok && x.mergeKey != "" && x.keys[k]
}

// hasTwins reports whether two items of a list could be twins, so that
// the list cannot be built by appending its items one by one.
func hasTwins(items []any, mergeKey string) bool {
	x := newTwinIndex(mergeKey)
	for _, it := range items {
		if x.meets(it) {
			return true
		}
		x.add(it)
	}
	return false
}
