package kpatch

// twin finds the item of list that an insertion of item updates instead
// of adding a second one, so that an insertion is idempotent:
//
//   - where the schema gives the list a merge key (patchMergeKey:
//     containers and env by name, volumeMounts by mountPath, container
//     ports by containerPort, Service ports by port) and the item holds
//     it, the item with the same key, and no other;
//   - else the item with the same name;
//   - else an item equal to the new one (scalars, and maps without a
//     name).
func twin(list []any, item any, mergeKey string) int {
	if mergeKey != "" {
		if key, ok := fieldOf(item, mergeKey); ok {
			for j, it := range list {
				if v, ok := fieldOf(it, mergeKey); ok && equalValue(v, key) {
					return j
				}
			}
			return -1
		}
	}
	if name, ok := fieldOf(item, "name"); ok {
		for j, it := range list {
			if n, ok := fieldOf(it, "name"); ok && equalValue(n, name) {
				return j
			}
		}
	}
	for j, it := range list {
		if equalValue(it, item) {
			return j
		}
	}
	return -1
}

// twinByKeys is twin for a custom resource's list whose CRD makes it a
// map (x-kubernetes-list-type: map) keyed by keys, an item that lacks a
// key taking its default (defaults, nil where the CRD gives none): the
// item whose every key equals the new item's, and no other, when the new
// item has them all; else as twin finds it without a merge key.
func twinByKeys(list []any, item any, keys []string, defaults []any) int {
	want := make([]any, len(keys))
	for i := range keys {
		v, ok := listKeyOf(item, keys, defaults, i)
		if !ok {
			return twin(list, item, "")
		}
		want[i] = v
	}
	for j, it := range list {
		if sameKeys(it, keys, defaults, want) {
			return j
		}
	}
	return -1
}

// listKeyOf is the i-th key of a list item: its field, or the key's default.
func listKeyOf(item any, keys []string, defaults []any, i int) (any, bool) {
	if v, ok := fieldOf(item, keys[i]); ok {
		return v, true
	}
	if defaults != nil && defaults[i] != nil {
		return defaults[i], true
	}
	return nil, false
}

// sameKeys reports whether item holds the keys want.
func sameKeys(item any, keys []string, defaults []any, want []any) bool {
	for i := range keys {
		if v, ok := listKeyOf(item, keys, defaults, i); !ok || !equalValue(v, want[i]) {
			return false
		}
	}
	return true
}

// fieldOf returns a map item's field; ok is false for other values and
// for a missing or null field.
func fieldOf(item any, field string) (any, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := m[field]
	return v, ok && v != nil
}

// updateTwin updates the twin at index j of the list in s: an insertion
// header's entries apply to it; an item given whole sets its fields on
// it, and the twin's other fields (what the API server defaulted, such as
// a port's protocol) stay.
func (a *applier) updateTwin(s slot, list []any, j int, pl *plan, item any, vars *Variables) *problem {
	if pl.build != nil {
		return a.applyBuild(slot{l: a.writableList(s, list), idx: j}, pl, vars)
	}
	m, ok := item.(map[string]any)
	cur, ok2 := list[j].(map[string]any)
	if !ok || !ok2 || coversFields(cur, m) {
		return nil
	}
	l := a.writableList(s, list)
	w := a.writableMap(slot{l: l, idx: j}, cur)
	for k, v := range m {
		if old, had := w[k]; !had || !equalValue(old, v) {
			a.set(slot{m: w, key: k}, v)
		}
	}
	return nil
}

// coversFields reports whether cur already holds every field of m.
func coversFields(cur, m map[string]any) bool {
	for k, v := range m {
		if old, had := cur[k]; !had || !equalValue(old, v) {
			return false
		}
	}
	return true
}
