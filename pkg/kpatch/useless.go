package kpatch

import (
	"fmt"
	"strings"
)

// UselessOverride is an entry that sets a field to the value it already
// has, which an earlier file set, on every object the entry matched: it
// changes nothing and can go (bkl reports such overrides too). Only
// entries of a constant scalar are judged.
type UselessOverride struct {
	Pos    Position // the entry
	Target Target   // the entry's section's
	Path   string   // the field, as a full path
	Value  any
	// Earlier is an entry of an earlier file that set the field on the
	// last object judged.
	Earlier Position
}

// Error formats the finding with the entry's position.
func (u *UselessOverride) Error() string {
	return fmt.Sprintf("%s: useless override: %s is already %s on every object this entry matches (set by %s); the entry changes nothing",
		u.Pos, u.Path, valueText(u.Value), u.Earlier)
}

// OverrideFinder finds useless overrides: give it each object with the
// patches in the order they apply (Object), then read Useless. An entry is
// useless when, on every object it matched, an earlier file that applied
// to the object had set the field and the field already held the entry's
// value when the entry's file applied.
type OverrideFinder struct {
	// Options are those Apply gets (the namespace of objects without
	// one).
	Options ApplyOptions

	entries map[overrideKey]*overrideState
	order   []overrideKey
}

type overrideKey struct {
	pos  Position
	path string
}

type overrideState struct {
	found  UselessOverride
	useful bool
}

// Object applies the patches to obj one at a time, in order, and judges
// the entries of each file that applies without failing.
func (f *OverrideFinder) Object(obj map[string]any, patches []*Patch) {
	ref := RefOf(obj, f.Options.Namespace)
	kind := strings.ToLower(ref.Kind)
	setBy := map[string]Position{} // path: the last constant write of an earlier file
	cur := obj
	for _, p := range patches {
		mine := p.matchingWrites(&ref, kind)
		if mine == nil {
			continue
		}
		next, err := Apply(cur, []*Patch{p}, f.Options)
		if err != nil {
			continue
		}
		for _, w := range mine {
			if w.steps != nil {
				earlier, set := setBy[w.path]
				f.judge(w, earlier, set && holds(cur, w))
			}
		}
		for _, w := range mine {
			setBy[w.path] = w.pos
		}
		cur = next
	}
}

// matchingWrites are the constant writes of p whose target matches the
// object; nil when no section of p matches it.
func (p *Patch) matchingWrites(ref *ObjectRef, kind string) []*write {
	matched := false
	for _, s := range p.sections {
		matched = matched || s.target.Matches(ref)
	}
	if !matched {
		return nil
	}
	all := p.constantWrites()
	out := make([]*write, 0, len(all))
	for i := range all {
		if w := &all[i]; w.kind == kind && w.target.Matches(ref) {
			out = append(out, w)
		}
	}
	return out
}

// holds reports whether obj holds w's value everywhere w's path reaches.
func holds(obj map[string]any, w *write) bool {
	r := reachSteps(obj, w.steps)
	if r.missing > 0 || len(r.values) == 0 {
		return false
	}
	for _, v := range r.values {
		if !equalValue(v, w.value) {
			return false
		}
	}
	return true
}

// judge records what w did on one object: nothing (useless, the value
// that earlier set) or something.
func (f *OverrideFinder) judge(w *write, earlier Position, useless bool) {
	key := overrideKey{w.pos, w.path}
	st := f.entries[key]
	if st == nil {
		if f.entries == nil {
			f.entries = map[overrideKey]*overrideState{}
		}
		st = &overrideState{found: UselessOverride{Pos: w.pos, Target: w.target, Path: w.path, Value: w.value}}
		f.entries[key] = st
		f.order = append(f.order, key)
	}
	if !useless {
		st.useful = true
		return
	}
	st.found.Earlier = earlier
}

// Useless returns the useless overrides, in the order their entries were
// first met.
func (f *OverrideFinder) Useless() []*UselessOverride {
	var out []*UselessOverride
	for _, k := range f.order {
		if st := f.entries[k]; !st.useful {
			found := st.found
			out = append(out, &found)
		}
	}
	return out
}

// UselessField is the useless overrides of one field of one target to one
// value, reported once whatever the number of entries.
type UselessField struct {
	Target  Target
	Path    string
	Value   any
	Entries []*UselessOverride // in the order found
}

// Error formats the field on one line, naming MaxFieldFiles entries and
// counting the others; one entry is formatted as the UselessOverride.
func (u *UselessField) Error() string { return u.Text(MaxFieldFiles) }

// Text formats the field naming at most max entries (all of them when
// max is negative).
func (u *UselessField) Text(max int) string {
	if len(u.Entries) == 1 {
		return u.Entries[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: useless overrides: %s %s is already %s on every object these %d entries match (",
		u.Entries[0].Pos, u.Target.String(), u.Path, valueText(u.Value), len(u.Entries))
	for i, e := range u.Entries {
		if max >= 0 && i == max {
			fmt.Fprintf(&b, ", ... %d more", len(u.Entries)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(posText(e.Pos))
	}
	fmt.Fprintf(&b, "; first set by %s); they change nothing", posText(u.Entries[0].Earlier))
	return b.String()
}

// GroupUseless groups useless overrides by target, field and value, in
// the order their first entry was found.
func GroupUseless(list []*UselessOverride) []*UselessField {
	type key struct {
		target     Target
		path, vkey string
	}
	byKey := map[key]*UselessField{}
	var out []*UselessField
	for _, u := range list {
		k := key{u.Target, u.Path, valueKey(u.Value)}
		g := byKey[k]
		if g == nil {
			g = &UselessField{Target: u.Target, Path: u.Path, Value: u.Value}
			byKey[k] = g
			out = append(out, g)
		}
		g.Entries = append(g.Entries, u)
	}
	return out
}
