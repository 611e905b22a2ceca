package registry

import (
	"slices"
	"sync"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// kindIndex finds, from what an AdmissionRequest says (namespace and
// name), the patches of one kind that may target an object, without the
// object: a request that no file may target is answered without decoding
// it. Each target is indexed by its most selective part: a literal name,
// the literal prefix of a name glob, else the same of its namespace; the
// targets found are then checked whole. It is immutable once built.
type kindIndex struct {
	// files are every file of the kind, in registry order.
	files []apply.File
	// byName holds the targets with a literal name or a name prefix;
	// byNamespace the others that have a literal namespace or a namespace
	// prefix; anyName the rest: they may target any name in any
	// namespace. Used when the request names the object.
	byName, byNamespace globIndex
	anyName             []indexedTarget
	// byNamespaceOnly and anyNamespace are the same targets indexed by
	// namespace alone, for a request without a name (a CREATE with
	// metadata.generateName).
	byNamespaceOnly globIndex
	anyNamespace    []indexedTarget
}

// indexedTarget is one target of the file at position pos of
// kindIndex.files.
type indexedTarget struct {
	pos    int32
	target *kpatch.Target
}

// add indexes the targets of f of this index's kind (lower-cased).
func (x *kindIndex) add(f apply.File, kind string) {
	pos := int32(len(x.files))
	x.files = append(x.files, f)
	for _, t := range f.Targets() {
		x.addTarget(indexedTarget{pos, t}, kind)
	}
}

func (x *kindIndex) addTarget(it indexedTarget, kind string) {
	t := it.target
	if !t.MatchesKind(kind) { // a literal kind, a kind set (@workload) or a glob
		return
	}
	if !x.byNamespaceOnly.add(t.Namespace, false, it) {
		x.anyNamespace = append(x.anyNamespace, it)
	}
	if x.byName.add(t.Name, t.NameLiteral, it) || x.byNamespace.add(t.Namespace, false, it) {
		return
	}
	x.anyName = append(x.anyName, it)
}

// candidates returns, in registry order, the patches with a target that
// may address an object of this kind in namespace named name; name ""
// means a name the request does not say.
func (x *kindIndex) candidates(namespace, name string) []apply.File {
	if len(x.files) == 0 {
		return nil
	}
	s := positionsPool.Get().(*positions)
	defer positionsPool.Put(s)
	found := s.found[:0]
	if name == "" {
		found = x.byNamespaceOnly.lookup(namespace, namespace, name, found)
		found = appendMatching(found, x.anyNamespace, namespace, name)
	} else {
		found = x.byName.lookup(name, namespace, name, found)
		found = x.byNamespace.lookup(namespace, namespace, name, found)
		found = appendMatching(found, x.anyName, namespace, name)
	}
	s.found = found
	if len(found) == 0 {
		return nil
	}
	slices.Sort(found)
	found = slices.Compact(found)
	out := make([]apply.File, len(found))
	for i, pos := range found {
		out[i] = x.files[pos]
	}
	return out
}

// positions is the scratch list of patch positions of one lookup.
type positions struct{ found []int32 }

var positionsPool = sync.Pool{New: func() any { return &positions{found: make([]int32, 0, 16)} }}

// appendMatching appends the positions of the targets that may address
// the object.
func appendMatching(found []int32, targets []indexedTarget, namespace, name string) []int32 {
	for _, it := range targets {
		if mayTarget(it.target, namespace, name) {
			found = append(found, it.pos)
		}
	}
	return found
}

// mayTarget reports whether t may address an object of the index's kind
// in namespace named name (any name when name is ""), whatever its API
// group: the kind was matched when t was indexed (a kind set or glob too),
// the group is checked on the decoded object.
func mayTarget(t *kpatch.Target, namespace, name string) bool {
	probe := kpatch.Target{Kind: "k", Namespace: t.Namespace, Name: t.Name, NameLiteral: t.NameLiteral}
	if name == "" {
		probe.Name, probe.NameLiteral = "*", false
	}
	return probe.Matches(&kpatch.ObjectRef{Kind: "k", Namespace: namespace, Name: name})
}
