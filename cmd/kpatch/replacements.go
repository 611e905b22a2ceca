package main

import "maps"

// setItems replaces the objects the document holds (see items): the
// object itself, or a List's items that are objects, in order.
func (d *document) setItems(objs []map[string]any) {
	items, isList := d.listItems()
	if !isList {
		d.obj = objs[0]
		return
	}
	replaced := make([]any, len(items))
	for i, it := range items {
		replaced[i] = it
		if _, ok := it.(map[string]any); ok {
			replaced[i], objs = objs[0], objs[1:]
		}
	}
	out := maps.Clone(d.obj)
	out["items"] = replaced
	d.obj = out
}
