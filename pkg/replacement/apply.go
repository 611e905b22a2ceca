package replacement

import (
	"errors"
	"slices"
	"strconv"

	"kpatch.dev/kpatch/pkg/fieldtype"
	"kpatch.dev/kpatch/pkg/fileerr"
)

// Apply runs the replacements, in file order, over a stream of objects,
// as kustomize build does: the sources are the objects themselves (as
// earlier replacements left them), the targets every object a target's
// select matches and no reject does. It returns every object, in input
// order; the objects no replacement changed are the input maps
// themselves. Inputs are never modified.
//
// The first failure stops the run, as in kustomize: Apply then returns
// the input objects unchanged and an *Error (a source that selects nothing
// or several objects, a missing source field, a target field that cannot
// be found or set).
func (r *Replacements) Apply(objects []map[string]any) ([]map[string]any, error) {
	out := slices.Clone(objects)
	e := newEditor()
	cands := make([]candidate, len(out))
	for _, rp := range r.items {
		for i, obj := range out {
			cands[i] = candidate{obj: obj, id: idOf(obj, "")}
		}
		val, err := rp.value(pool{rest: cands})
		if err != nil {
			return objects, err
		}
		for _, t := range rp.targets {
			for i, obj := range out {
				id := idOf(obj, "")
				if !t.sel.selects(obj, id) {
					continue
				}
				if out[i], err = t.write(e, obj, id, val, r.fieldTypes()); err != nil {
					return objects, err
				}
			}
		}
	}
	return out, nil
}

// ObjectOptions adjust ApplyObject.
type ObjectOptions struct {
	// Namespace is the object's namespace when it has no
	// metadata.namespace, as on an admission request.
	Namespace string
	// Fallback are candidate sources that a source may select only when
	// it selects nothing among the object and the sources: defaults that
	// the sources shadow, such as the registry namespace's ConfigMaps
	// behind those of the object's namespace.
	Fallback []map[string]any
}

// ApplyObject runs the replacements on one object, as at admission: obj
// is the only target (selects and rejects are matched against it) and
// the first candidate source, as earlier replacements left it; sources are
// the other candidates, such as the object's Namespace and labelled
// ConfigMaps. A candidate with obj's own id (an older copy of it) is
// ignored. Neither obj nor the sources are modified.
//
// A replacement whose source cannot be resolved (errors.Is(err,
// ErrSource)) is skipped and the others apply. Any other failure leaves the
// object as it was: ApplyObject then returns obj itself. The errors are
// *Error values in a fileerr.List.
func (r *Replacements) ApplyObject(obj map[string]any, sources []map[string]any, opts ObjectOptions) (map[string]any, error) {
	e := newEditor()
	cur := obj
	var errs fileerr.List
	var srcs, fallback []candidate // the ids of sources and fallback, read once
	for _, rp := range r.items {
		id := idOf(cur, opts.Namespace)
		if !rp.targetsObject(cur, id) {
			continue
		}
		if srcs == nil {
			srcs, fallback = candidatesOf(sources), candidatesOf(opts.Fallback)
		}
		self := &candidate{obj: cur, id: id}
		val, err := rp.value(pool{self: self, rest: srcs})
		if err != nil && errors.Is(err, ErrNoSource) && len(fallback) > 0 {
			val, err = rp.value(pool{rest: fallback, skip: self})
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, t := range rp.targets {
			id := idOf(cur, opts.Namespace)
			if !t.sel.selects(cur, id) {
				continue
			}
			if cur, err = t.write(e, cur, id, val, r.fieldTypes()); err != nil {
				return obj, append(errs, err)
			}
		}
	}
	return cur, errs.Err()
}

// candidatesOf reads the ids of objects; never nil.
func candidatesOf(objs []map[string]any) []candidate {
	out := make([]candidate, len(objs))
	for i, o := range objs {
		out[i] = candidate{obj: o, id: idOf(o, "")}
	}
	return out
}

// targetsObject reports whether any target of the replacement selects
// the object.
func (rp *replacement) targetsObject(obj map[string]any, id ResID) bool {
	for _, t := range rp.targets {
		if t.sel.selects(obj, id) {
			return true
		}
	}
	return false
}

// value is the replacement's value: its literal, or its source's.
func (rp *replacement) value(cands pool) (value, *Error) {
	if rp.source == nil {
		return value{text: rp.literal, tag: tagNone}, nil
	}
	return rp.source.resolve(cands)
}

// write sets the value at every fieldPath of the target in one object,
// typing each field it writes with typeOf.
func (t *target) write(e *editor, obj map[string]any, id ResID, val value, typeOf fieldtype.Func) (map[string]any, *Error) {
	w := &walker{e: e, create: t.opts.create, val: val, opts: t.opts, typeOf: typeOf}
	w.apiVersion, _ = obj["apiVersion"].(string)
	w.kind, _ = obj["kind"].(string)
	for _, p := range t.paths {
		w.path = w.pathBuf[:0]
		nv, n, f := w.update(obj, p.steps)
		if f == nil && n == 0 {
			f = fail(ErrTargetField, "%s", p.notFound(t.opts.create))
		} else if f != nil && f.err == ErrTargetField {
			f.msg = p.notFound(t.opts.create) + ": " + f.msg
		} else if f != nil {
			f.msg = "unable to set field " + strconv.Quote(p.String()) + " in replacement target: " + f.msg
		}
		if f != nil {
			pos := p.pos
			if errors.Is(f.err, ErrValue) && t.opts.delimiter != "" {
				pos = t.opts.pos
			}
			return obj, f.at(pos, id.Object())
		}
		obj = nv.(map[string]any)
	}
	return obj, nil
}

// notFound is kustomize's message for a target path that leads nowhere.
func (p targetPath) notFound(create bool) string {
	if create {
		return "unable to find or create field " + strconv.Quote(p.String()) + " in replacement target"
	}
	return "unable to find field " + strconv.Quote(p.String()) + " in replacement target"
}
