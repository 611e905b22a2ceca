package kpatch

import (
	"fmt"
	"slices"
	"strings"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// OverwrittenFile is a patch file whose every change is overwritten by
// files that apply after it, on every object it changed: the objects come
// out the same without it. Usually it is ordered wrong (a generic file
// meant to win, such as an image mirror over every workload, applies first
// because it is the least specific); a layer orders it last.
type OverwrittenFile struct {
	Pos  Position // the file's first header or entry
	File string
	// By are the later files that changed the fields it changed, in the
	// order they apply.
	By []string
	// Objects is how many objects it changed.
	Objects int
}

// Error formats the finding with the file's position.
func (o *OverwrittenFile) Error() string {
	by := "later files"
	if len(o.By) > 0 {
		by += " (" + strings.Join(o.By, ", ") + ")"
	}
	objects := "the object it changes, which comes"
	if o.Objects > 1 {
		objects = fmt.Sprintf("each of the %d objects it changes, which come", o.Objects)
	}
	return fmt.Sprintf("%s: overwritten file: every change it makes is overwritten by %s on %s out the same without it; a higher layer (# kpatch:layer: N) makes it apply after them",
		o.Pos, by, objects)
}

// OverwriteFinder finds overwritten files: give it each object with the
// patches in the order they apply (Object), then read Overwritten. A file
// is overwritten when it changed at least one object and, on every object
// it changed, applying the files after it to what it made gives what they
// give without it. A file that fails on an object, or leaves it as it is,
// tells nothing there: only the objects it changes are judged.
type OverwriteFinder struct {
	// Options are those Apply gets (the namespace of objects without
	// one).
	Options ApplyOptions

	files map[*Patch]*overwriteState
	order []*Patch
}

type overwriteState struct {
	found OverwrittenFile
	// by are the files of found.By, as a set.
	by map[string]bool
	// kept: on some object, a change of the file survives.
	kept bool
}

// Object applies the patches to obj one at a time, in order, and judges
// each file that changes it: the same patches after it, applied to obj
// without it, make the same object, or not.
func (f *OverwriteFinder) Object(obj map[string]any, patches []*Patch) {
	ref := RefOf(obj, f.Options.Namespace)
	states := make([]map[string]any, len(patches)+1) // states[i]: before patches[i]
	changed := make([]bool, len(patches))
	states[0] = obj
	for i, p := range patches {
		states[i+1] = states[i]
		if !p.Targets(&ref) {
			continue
		}
		next, err := Apply(states[i], []*Patch{p}, f.Options)
		if err != nil || jsonvalue.Equal(next, states[i]) {
			continue
		}
		states[i+1], changed[i] = next, true
	}
	final := states[len(patches)]
	for i, p := range patches {
		if !changed[i] || p.defaultsOnly() {
			continue
		}
		st := f.state(p)
		if st.kept {
			continue // judged useful already: spare the work
		}
		without, _ := Apply(states[i], patches[i+1:], f.Options)
		if !jsonvalue.Equal(without, final) {
			st.kept = true
			continue
		}
		st.found.Objects++
		mine := changedFields(states[i], states[i+1])
		for j := i + 1; j < len(patches); j++ {
			if name := patches[j].Name(); changed[j] && !st.by[name] && touches(mine, changedFields(states[j], states[j+1])) {
				st.by[name] = true
				st.found.By = append(st.found.By, name)
			}
		}
	}
}

func (f *OverwriteFinder) state(p *Patch) *overwriteState {
	if st := f.files[p]; st != nil {
		return st
	}
	if f.files == nil {
		f.files = map[*Patch]*overwriteState{}
	}
	st := &overwriteState{found: OverwrittenFile{Pos: firstHeader(p), File: p.Name()}, by: map[string]bool{}}
	f.files[p] = st
	f.order = append(f.order, p)
	return st
}

// Overwritten returns the overwritten files, in the order they were first
// met (the order they apply).
func (f *OverwriteFinder) Overwritten() []*OverwrittenFile {
	var out []*OverwrittenFile
	for _, p := range f.order {
		if st := f.files[p]; !st.kept && st.found.Objects > 0 {
			found := st.found
			found.By = append([]string(nil), st.found.By...)
			out = append(out, &found)
		}
	}
	return out
}

// firstHeader is the position of the file's first header or merge entry.
func firstHeader(p *Patch) Position {
	pos := Position{File: p.Name(), Line: 1, Column: 1}
	first := 0
	consider := func(line, col int) {
		if first == 0 || line < first {
			first, pos.Line, pos.Column = line, line, col
		}
	}
	if file := p.File(); file != nil {
		for _, s := range file.Sections {
			consider(s.Line, s.Col)
		}
		for _, m := range file.Merges {
			consider(m.Line, m.Col)
		}
	}
	return pos
}

// changedFields lists where after differs from before: the paths, as
// segments, of the leaves that differ, and of the map keys and list
// items one of them lacks. List items that all carry a distinct name are
// followed by name (an insertion before an item does not move it), other
// lists are one leaf.
func changedFields(before, after any) [][]string {
	var out [][]string
	diffFields(before, after, nil, &out)
	return out
}

func diffFields(before, after any, path []string, out *[][]string) {
	if jsonvalue.Equal(before, after) {
		return
	}
	switch b := before.(type) {
	case map[string]any:
		a, ok := after.(map[string]any)
		if !ok {
			break
		}
		for k, bv := range b {
			av, had := a[k]
			if !had {
				*out = append(*out, appendSegment(path, k))
				continue
			}
			diffFields(bv, av, appendSegment(path, k), out)
		}
		for k := range a {
			if _, had := b[k]; !had {
				*out = append(*out, appendSegment(path, k))
			}
		}
		return
	case []any:
		a, ok := after.([]any)
		bn, ok1 := itemNames(b)
		an, ok2 := itemNames(a)
		if !ok || !ok1 || !ok2 {
			break
		}
		for name, bv := range bn {
			av, had := an[name]
			if !had {
				*out = append(*out, appendSegment(path, "[name="+name+"]"))
				continue
			}
			diffFields(bv, av, appendSegment(path, "[name="+name+"]"), out)
		}
		for name := range an {
			if _, had := bn[name]; !had {
				*out = append(*out, appendSegment(path, "[name="+name+"]"))
			}
		}
		return
	}
	*out = append(*out, path)
}

func appendSegment(path []string, seg string) []string {
	return append(path[:len(path):len(path)], seg)
}

// itemNames indexes the items of a list by their name; ok is false unless
// every item is a map with a distinct string name.
func itemNames(list []any) (map[string]any, bool) {
	out := make(map[string]any, len(list))
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, false
		}
		name, ok := m["name"].(string)
		if _, dup := out[name]; !ok || dup {
			return nil, false
		}
		out[name] = m
	}
	return out, true
}

// touches reports whether a path of a and one of b are the same, or one
// lies inside the other.
func touches(a, b [][]string) bool {
	for _, p := range a {
		for _, q := range b {
			n := min(len(p), len(q))
			if slices.Equal(p[:n], q[:n]) {
				return true
			}
		}
	}
	return false
}
