package kpatch

import (
	"errors"

	yaml "go.yaml.in/yaml/v3"
)

// ErrRequired is a field that a patch file marks ${required} (in a YAML
// patch file, $required) and that the object does not hold once every
// file has applied: a later layer, or the object itself, was to set it.
var ErrRequired = errors.New("required field not set")

// requiredMarkers are the values that mark a field as required: in a
// .kpatch file, ${required}, quoted or not; in a YAML patch file, the
// string $required (or ${required}).
var requiredMarkers = []string{"${required}", `"${required}"`, "'${required}'"}

// requiredValue returns the value of an entry written ${required}.
func requiredValue(text string) (Value, bool) {
	raw := stripComment(text)
	for _, m := range requiredMarkers {
		if raw == m {
			return Value{Raw: raw, Required: true}, true
		}
	}
	return Value{}, false
}

// yamlRequiredValue returns the value of a YAML field entry written
// $required or ${required}.
func yamlRequiredValue(n *yaml.Node) (Value, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && (n.Value == "$required" || n.Value == "${required}") {
		return Value{Raw: n.Value, Required: true}, true
	}
	return Value{}, false
}

// errRequiredHere is a ${required} where no field is set: in an item an
// insertion builds, or with a delete.
var errRequiredHere = errorf(ErrSyntax, "${required} marks a field of the object that a later layer must set; it cannot be part of an insertion or a delete")

// splitRequired moves the operations of the entries written ${required}
// (ops[i] is the operation of entries[i]) out of the ones that apply: they
// set nothing, and are checked once every file has applied.
func splitRequired(ops []*operation, entries []*Entry) (apply, required []*operation) {
	for i, op := range ops {
		if !entries[i].Value.Required {
			apply = append(apply, op)
			continue
		}
		for _, pl := range append([]*plan{op.generic}, op.schemas...) {
			if pl.act != actSet {
				pl.fail(pl.col, errRequiredHere)
			}
		}
		required = append(required, op)
	}
	return apply, required
}

// Required reports whether the patch marks fields ${required}.
func (p *Patch) Required() bool {
	for _, s := range p.sections {
		if len(s.required) > 0 {
			return true
		}
	}
	return false
}

// MissingRequired returns an *ApplyError wrapping ErrRequired for each
// field the patch marks ${required}, in a section whose target matches
// ref, that obj does not hold (absent, or null): MissingFields, as errors.
// obj is the object once every file has applied; ref is the object as the
// files matched it; opts are the options they applied with (Schemas: a
// custom resource's CRD tells which fields are lists).
func (p *Patch) MissingRequired(obj map[string]any, ref *ObjectRef, opts ApplyOptions) []error {
	var out []error
	for _, f := range p.MissingFields(obj, ref, opts) {
		out = append(out, &ApplyError{
			Pos: f.Pos, Object: ref.String(), Err: ErrRequired, Field: f.Path,
			Msg: f.Path + " is ${required}: a later layer or the object itself must set it, and nothing did",
		})
	}
	return out
}

// MissingField is a field that a patch file marks ${required} and that
// an object does not hold.
type MissingField struct {
	Pos  Position // the entry that marks it
	Path string   // the field, as a full path
}

// MissingFields returns each field the patch marks ${required}, in a
// section whose target matches ref, that obj does not hold (absent, or
// null), in file order. A path through a list must reach a value in every
// item it selects; a selector that matches no item reaches nothing, and so
// does a list the object lacks (on a custom resource, one its CRD names,
// by opts.Schemas).
func (p *Patch) MissingFields(obj map[string]any, ref *ObjectRef, opts ApplyOptions) []MissingField {
	var out []MissingField
	var custom *typeNode
	if p.Required() {
		custom = opts.custom(ref)
	}
	for i, s := range p.sections {
		if len(s.required) == 0 || !s.target.Matches(ref) || p.left(i) {
			continue
		}
		for _, op := range s.required {
			pl := s.planFor(op, ref)
			if pl == nil || pl.err != nil {
				continue // the entry is not for the object's kind
			}
			root := custom
			if pl.typed {
				root = nil
			}
			if missingAt(obj, pl.steps, root) {
				out = append(out, MissingField{Pos: Position{File: p.name, Line: pl.line, Column: pl.col}, Path: pathText(pl.steps)})
			}
		}
	}
	return out
}

// CheckRequired returns the errors of MissingRequired of every patch, in
// order: the fields the patches require that obj does not hold.
func CheckRequired(obj map[string]any, ref ObjectRef, patches []*Patch, opts ApplyOptions) ErrorList {
	var out ErrorList
	for _, p := range patches {
		out = append(out, p.MissingRequired(obj, &ref, opts)...)
	}
	return out
}

// reach counts the places a path reaches: those holding a value, and
// those where the path stops short (a field absent or null, an index past
// the end, a selector that matches nothing).
type reach struct {
	present, missing int
	values           []any // the values present, when collect
	collect          bool
	// custom is the schema of a custom resource that the steps all
	// start from (nil: none), which tells the lists it lacks.
	custom *typeNode
	all    []step
}

// reachSteps reads, without changing anything, what a compiled path
// reaches in v, and the values there.
func reachSteps(v any, steps []step) reach {
	r := reach{collect: true}
	r.walk(v, steps)
	return r
}

// missingAt reports whether a compiled path stops short somewhere in v,
// the root of an object whose schema is custom (a custom resource's; nil
// for none); it allocates nothing.
func missingAt(v any, steps []step, custom *typeNode) bool {
	r := reach{custom: custom, all: steps}
	r.walk(v, steps)
	return r.missing > 0
}

// customNothing reports whether rest, the steps after the first
// len(r.all)-len(rest) of them, go through every item of a list that the
// custom resource's schema names, on a value that does not exist.
func (r *reach) customNothing(rest []step) bool {
	k := len(r.all) - len(rest)
	if r.custom == nil || k < 0 || len(rest) == 0 || &r.all[k] != &rest[0] {
		return false // not a suffix of the steps: a path of its own
	}
	return listOfNothing(customLeaf(r.custom, r.all[:k]), rest)
}

// found counts a value present.
func (r *reach) found(v any) {
	r.present++
	if r.collect {
		r.values = append(r.values, v)
	}
}

// walk counts what steps reach in v. Every item of a list that does not
// exist is nothing, neither present nor missing (see itemsOfNothing).
func (r *reach) walk(v any, steps []step) {
	if v == nil && (itemsOfNothing(steps) || r.customNothing(steps)) {
		return
	}
	if len(steps) == 0 {
		if v == nil {
			r.missing++
		} else {
			r.found(v)
		}
		return
	}
	rest := steps[1:]
	switch x := steps[0].(type) {
	case *fieldStep:
		r.field(v, x.name, rest)
	case itemsFieldStep:
		r.field(v, x.name, rest)
	case keyStep:
		r.field(v, x.text, rest)
	case imagePartStep:
		r.imagePart(v, x.name, rest)
	case maybeImagePartStep:
		r.imagePart(v, x.name, rest)
	case *indexStep:
		r.index(v, x, rest)
	case *selectStep:
		r.items(v, &x.match, rest)
	case *allStep:
		r.items(v, nil, rest)
	case *allContainersStep:
		r.allContainers(v, x, rest)
	default:
		r.missing++
	}
}

// field reads a map's key, or the field of every item of a list.
func (r *reach) field(v any, name string, rest []step) {
	switch x := v.(type) {
	case map[string]any:
		r.walk(x[name], rest)
	case []any:
		for _, it := range x {
			r.field(it, name, rest)
		}
	default:
		r.missing++
	}
}

// imagePart reads a part of a string image reference (a field when the
// value is a map: a custom resource's image.tag).
func (r *reach) imagePart(v any, part string, rest []step) {
	s, ok := v.(string)
	if !ok {
		r.field(v, part, rest)
		return
	}
	ref := splitImage(s)
	var text string
	switch part {
	case "registry":
		text = ref.registry
	case "repository":
		text = ref.name()
	case "tag":
		text = ref.tag
	case "digest":
		text = ref.digest
	}
	switch {
	case text == "":
		r.missing++
	case r.collect:
		r.found(text)
	default:
		r.present++ // the text is not boxed in an any for nothing
	}
}

func (r *reach) index(v any, x *indexStep, rest []step) {
	switch l := v.(type) {
	case []any:
		if x.index < len(l) {
			r.walk(l[x.index], rest)
			return
		}
	case map[string]any:
		r.walk(l[x.text], rest)
		return
	}
	r.missing++
}

// items reads the items of a list that m selects (every item when m is
// nil); a selector that matches none is missing.
func (r *reach) items(v any, m *match, rest []step) {
	l, ok := v.([]any)
	if !ok {
		if v != nil || m != nil {
			r.missing++
		}
		return
	}
	found := false
	for _, it := range l {
		if m == nil || m.matches(it) {
			found = true
			r.walk(it, rest)
		}
	}
	if m != nil && !found {
		r.missing++
	}
}

// allContainers reads the container lists of a pod spec that exist; a
// selector must match in one of them.
func (r *reach) allContainers(v any, x *allContainersStep, rest []step) {
	spec, ok := v.(map[string]any)
	if !ok {
		r.missing++
		return
	}
	sel, _ := firstStep(rest).(*selectStep)
	found := false
	for _, name := range x.lists() {
		l, ok := spec[name].([]any)
		if !ok {
			continue
		}
		if sel == nil {
			r.walk(l, rest)
			continue
		}
		for _, it := range l {
			if sel.match.matches(it) {
				found = true
				r.walk(it, rest[1:])
			}
		}
	}
	if sel != nil && !found {
		r.missing++
	}
}

func firstStep(steps []step) step {
	if len(steps) == 0 {
		return nil
	}
	return steps[0]
}

// errRequiredInTree is $required inside a map or list value, or in a
// merge patch: it marks the whole value of a field entry only.
var errRequiredInTree = errorf(ErrValue, "$required stands alone as the value of a field entry (key: $required); it cannot be part of a map, a list or a merge patch")

// treeHasRequired reports whether a map or list value holds the string
// $required or ${required} anywhere.
func treeHasRequired(v any) bool {
	return anyLeaf(v, func(leaf any) bool {
		s, ok := leaf.(string)
		return ok && (s == "$required" || s == "${required}")
	})
}
