package kpatch

import "unsafe"

// Size estimates the memory the compiled patch keeps, in bytes: its
// syntax tree, its plans (those its API versions share, once) and their
// values. A registry sums it over its files to cap what it holds; it is
// computed once, by Compile.
func (p *Patch) Size() int { return p.size }

// compiledSize estimates the memory of a compiled patch; see Size.
func compiledSize(p *Patch) int {
	n := int(unsafe.Sizeof(Patch{})) + fileSize(p.file)
	for _, s := range p.sections {
		n += int(unsafe.Sizeof(section{})) + 8*len(s.kinds)
		if s.merge != nil {
			n += int(unsafe.Sizeof(mergeOp{}))
			for _, mp := range s.merge.schemas {
				n += int(unsafe.Sizeof(mergePlan{})) + treeSize(mp.patch)
			}
			continue
		}
		seen := map[*plan]bool{}
		for _, op := range s.ops {
			n += int(unsafe.Sizeof(operation{})) + 8*len(op.schemas) + planSize(op.generic, seen)
			for _, pl := range op.schemas {
				n += planSize(pl, seen)
			}
		}
	}
	return n
}

// stepSize is what one step of a plan holds: its place in the slice and
// the step it points to.
const stepSize = 16 + 48

func planSize(pl *plan, seen map[*plan]bool) int {
	if seen[pl] {
		return 0
	}
	seen[pl] = true
	n := int(unsafe.Sizeof(plan{})) + stepSize*len(pl.steps) + treeSize(pl.value) + len(pl.raw)
	for _, sub := range pl.build {
		n += 8 + planSize(sub, seen)
	}
	return n
}

// fileSize estimates the memory of a syntax tree.
func fileSize(f *File) int {
	if f == nil {
		return 0
	}
	n := int(unsafe.Sizeof(File{})) + len(f.Name)
	for _, s := range f.Sections {
		n += 8 + int(unsafe.Sizeof(Section{})) + pathSize(s.Path)
		for _, e := range s.Entries {
			n += 8 + int(unsafe.Sizeof(Entry{})) + pathSize(e.Key) + len(e.Value.Raw) + treeSize(e.Value.Scalar) + treeSize(e.Value.Tree)
			n += int(unsafe.Sizeof(ValuePart{})) * len(e.Value.Parts)
			if e.Value.src != nil {
				n += sourceNodeSize * len(e.Value.src.nodes)
			}
		}
	}
	for _, m := range f.Merges {
		n += 8 + int(unsafe.Sizeof(MergeEntry{})) + treeSize(m.Patch)
		if m.src != nil {
			n += sourceNodeSize * len(m.src.nodes)
		}
	}
	return n
}

// sourceNodeSize is what the position of one node of a YAML value holds:
// its map entry, key and record.
const sourceNodeSize = 48 + int(unsafe.Sizeof(sourceNode{}))

func pathSize(p Path) int {
	n := int(unsafe.Sizeof(Segment{})) * len(p)
	for i := range p {
		n += len(p[i].Name) + len(p[i].Value) + 16*len(p[i].Key)
		for _, k := range p[i].Key {
			n += len(k)
		}
	}
	return n
}

// treeSize estimates the memory of an unstructured value: Go's maps
// spend about 48 bytes an entry beyond the key and value.
func treeSize(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 48
		for k, e := range x {
			n += 48 + len(k) + treeSize(e)
		}
		return n
	case []any:
		n := 24
		for _, e := range x {
			n += 16 + treeSize(e)
		}
		return n
	case string:
		return 16 + len(x)
	case nil:
		return 0
	}
	return 16
}
