package kpatch

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Conflict is two files setting the same field of objects they can both
// hit to different values. Files apply in order, so Later's value wins.
type Conflict struct {
	Path          string // the field, as a full path: spec.template.spec.containers[name="main"].image
	Earlier       Position
	EarlierValue  any
	Later         Position
	LaterValue    any
	Target, Other Target
	// Field is the contested field the conflict stands for, when it was
	// found by FieldConflicts: its Error is then the field's.
	Field *FieldConflict
}

// Error formats the conflict with both positions, or the field it stands
// for.
func (c *Conflict) Error() string {
	if c.Field != nil {
		return c.Field.Error()
	}
	return fmt.Sprintf("%s: %s set to %s, but %s sets it to %s (the later file wins)",
		c.Earlier, c.Path, valueText(c.EarlierValue), c.Later, valueText(c.LaterValue))
}

// TextShowing is Error with the values of the files show accepts only:
// the other file is named by its position alone (FieldConflict.TextShowing).
func (c *Conflict) TextShowing(show func(file string) bool) string {
	if c.Field != nil {
		return c.Field.TextShowing(MaxFieldFiles, show)
	}
	set := func(p Position, v any) string {
		if show == nil || show(p.File) {
			return " to " + valueText(v)
		}
		return ""
	}
	return fmt.Sprintf("%s: %s set%s, but %s sets it%s (the later file wins)",
		c.Earlier, c.Path, set(c.Earlier, c.EarlierValue), c.Later, set(c.Later, c.LaterValue))
}

func valueText(v any) string {
	if s, ok := scalarText(v); ok {
		if _, isStr := v.(string); isStr {
			return fmt.Sprintf("%q", s)
		}
		if v == nil {
			return "null"
		}
		return s
	}
	return fmt.Sprintf("%v", v)
}

// write is one field a file sets to a constant.
type write struct {
	kind   string // lower case: the target's, or one of its kinds
	target Target
	path   string
	value  any
	pos    Position
	// steps reach the field, for an entry's scalar value (the useless
	// override check reads the field with them); nil for a value of a
	// map or list and for a merge patch.
	steps []step
}

// Conflicts finds, across files in their apply order, the fields that two
// different files set to different constant values on objects both can
// hit: field entries (.kpatch and YAML) and strategic merge patches, whose
// lists are keyed by their merge keys (containers by name). Values with
// variables, insertions and deletions are not compared. It returns every
// conflict, which for n files setting one field is n(n-1)/2: a registry
// calls ConflictsUpTo.
func Conflicts(patches []*Patch) []*Conflict {
	out, _ := ConflictsUpTo(patches, -1)
	return out
}

// ConflictsUpTo finds the conflicts Conflicts does, in the same order, but
// returns only the first limit of them (all of them when limit is
// negative), and how many there are in all. Its cost is linear in the
// number of fields the files set, plus the conflicts it returns: writes
// are indexed by kind and full path, then by target, and counted by value.
func ConflictsUpTo(patches []*Patch, limit int) (first []*Conflict, total int) {
	return ConflictsInOrder(patches, nil, limit)
}

// constantWrites lists the constant fields the patch sets, with full
// paths, once: compiled patches are immutable.
func (p *Patch) constantWrites() []write {
	if p.lazy == nil { // a patch built without Compile
		return p.writes()
	}
	p.lazy.writesOnce.Do(func() { p.lazy.writes = p.writes() })
	return p.lazy.writes
}

// writes lists the constant fields the patch sets, with full paths: for
// a target of several kinds, those of each kind.
func (p *Patch) writes() []write {
	var out []write
	for _, s := range p.sections {
		for _, k := range s.writeKinds() {
			if s.merge != nil {
				out = append(out, s.merge.writes(s, k, p.name)...)
				continue
			}
			for _, op := range s.ops {
				out = appendPlanWrites(out, s, k, op.plan(k.checked), p.name)
			}
		}
	}
	return out
}

// kindPlans is one kind of a section: its name and where its checked
// plans are in the section's schemas.
type kindPlans struct {
	kind    string
	checked []int // indexes into the section's schemas
}

// writeKinds are the kinds whose writes a section lists: the target's
// kind, or each kind of a target of several.
func (s *section) writeKinds() []kindPlans {
	if !s.multi {
		all := make([]int, s.checked)
		for i := range all {
			all[i] = i
		}
		return []kindPlans{{kind: strings.ToLower(s.target.Kind), checked: all}}
	}
	var out []kindPlans
	for i, ks := range s.kinds[:s.checked] {
		kind := strings.ToLower(ks.gvk.Kind)
		if n := len(out); n > 0 && out[n-1].kind == kind {
			out[n-1].checked = append(out[n-1].checked, i)
			continue
		}
		out = append(out, kindPlans{kind: kind, checked: []int{i}})
	}
	return out
}

// appendPlanWrites appends the constant fields one plan sets on objects
// of kind k; a path through allContainers is each container list's. A
// set-if-absent entry overrides no value, so it is none of them: a later
// file's value wins over it as intended, and it never wins over an
// earlier one.
func appendPlanWrites(out []write, s *section, k kindPlans, pl *plan, file string) []write {
	if pl.err != nil || pl.act != actSet || pl.ifAbsent || pl.tmpl != nil || pl.value == nil && pl.raw == "" {
		return out
	}
	pos := Position{File: file, Line: pl.line, Column: pl.col}
	value, leaf := pl.value, pl.leaf
	if !pl.typed {
		// a custom resource's metadata is typed whatever its CRD: what
		// the entry writes there (labels.v: 1.10 is "1.10")
		if leaf = customLeaf(anyResource(), pl.steps); leaf != nil {
			if v, err := pl.constantAs(leaf); err == nil {
				value = v
			}
		}
	}
	for _, path := range writePaths(pl.steps) {
		if m, isTree := value.(map[string]any); isTree {
			flattenWrites(m, leaf, path, func(path string, v any) {
				out = append(out, write{kind: k.kind, target: s.target, path: path, value: v, pos: pos})
			})
			continue
		}
		out = append(out, write{kind: k.kind, target: s.target, path: path, value: value, pos: pos, steps: pl.steps})
	}
	return out
}

// writePaths are the full paths of steps: one, or one for each container
// list that allContainers reaches.
func writePaths(steps []step) []string {
	i := slices.IndexFunc(steps, func(st step) bool { _, ok := st.(*allContainersStep); return ok })
	if i < 0 {
		return []string{pathText(steps)}
	}
	x := steps[i].(*allContainersStep)
	var out []string
	for _, name := range x.lists() {
		parts := slices.Concat(steps[:i], []step{&fieldStep{name: name}}, steps[i+1:])
		out = append(out, pathText(parts))
	}
	return out
}

// writes lists the constant fields of a strategic merge patch: the patch
// converted to the first checked version of the kind k.
func (op *mergeOp) writes(s *section, k kindPlans, file string) []write {
	m := op.entry
	mp := op.checkedPlans(s.checked)[0]
	if s.multi {
		mp = op.schemas[k.checked[0]]
	}
	if !m.Strategic || mp.err != nil {
		return nil
	}
	patch := mp.patch
	if op.templated {
		patch = m.Patch
	}
	var out []write
	pos := Position{File: file, Line: m.Line, Column: m.Col}
	flattenWrites(patch, mp.root, "", func(path string, v any) {
		if text, ok := v.(string); !ok || !strings.Contains(text, "${") {
			out = append(out, write{kind: k.kind, target: s.target, path: path, value: v, pos: pos})
		}
	})
	return out
}

// flattenWrites walks a map patch to its leaves: maps by key, lists of
// maps by their merge key where the schema has one; other lists and
// scalars are leaves. Directives ($patch, $retainKeys, ...) are skipped.
func flattenWrites(m map[string]any, n *typeNode, prefix string, emit func(string, any)) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if strings.HasPrefix(k, "$") {
			continue
		}
		v := m[k]
		path := k
		if prefix != "" {
			path = prefix + "." + escapeBare(k)
		} else {
			path = escapeBare(k)
		}
		var child *typeNode
		mergeKey := ""
		if n != nil {
			switch n.kind {
			case tStruct:
				child = n.fields[k]
				mergeKey = n.mergeKeys[k]
			case tMap:
				child = n.elem
			}
		}
		switch x := v.(type) {
		case map[string]any:
			flattenWrites(x, child, path, emit)
		case []any:
			if mergeKey == "" || child == nil {
				emit(path, v)
				continue
			}
			for _, item := range x {
				im, ok := item.(map[string]any)
				key, _ := scalarText(im[mergeKey])
				if !ok || im[mergeKey] == nil {
					continue
				}
				flattenWrites(withoutKey(im, mergeKey), child.elem, path+"["+selectorText([]string{mergeKey}, key)+"]", emit)
			}
		default:
			emit(path, v)
		}
	}
}

func withoutKey(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}
