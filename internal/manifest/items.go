package manifest

import "maps"

// SetItems replaces the objects the document holds (see Items): the
// object itself, or a List's items that are objects, in order.
func (d *Document) SetItems(objs []map[string]any) {
	items, isList := d.listItems()
	if !isList {
		d.Obj = objs[0]
		return
	}
	replaced := make([]any, len(items))
	for i, it := range items {
		replaced[i] = it
		if _, ok := it.(map[string]any); ok {
			replaced[i], objs = objs[0], objs[1:]
		}
	}
	out := maps.Clone(d.Obj)
	out["items"] = replaced
	d.Obj = out
}
