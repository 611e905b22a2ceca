package manifest

import (
	"maps"

	"kpatch.dev/kpatch/pkg/replacement"
)

// Replace runs a replacements file over the objects of the
// documents, as kustomize build does over its resources: the items of a
// List are objects of their own. The first failure leaves every object as
// it was.
func Replace(r *replacement.Replacements, docs []*Document) error {
	var objs []map[string]any
	counts := make([]int, len(docs))
	for i, d := range docs {
		items := d.Items()
		counts[i] = len(items)
		objs = append(objs, items...)
	}
	out, err := r.Apply(objs)
	if err != nil {
		return err
	}
	for i, d := range docs {
		d.setItems(out[:counts[i]])
		out = out[counts[i]:]
	}
	return nil
}

// setItems replaces the objects the document holds (see items): the
// object itself, or a List's items that are objects, in order.
func (d *Document) setItems(objs []map[string]any) {
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
