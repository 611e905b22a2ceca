package kpatch

import (
	"container/heap"
	"errors"
	"strings"
)

// Member is one file of a set whose metadata relate its files: a run of
// the CLI, or a registry.
type Member struct {
	// Scope is the set of files the member's names may name: only the
	// members of the same Scope ("" for every member without one). In a
	// registry, a tenant's namespace, so that a tenant's metadata cannot
	// name the files of the admin or of another tenant.
	Scope string
	// Group is the file's ConfigMap in a registry, its directory in the
	// CLI; "" when it has none.
	Group string
	// Name is the file's name without its extension (TrimPatchExtension);
	// "" when metadata cannot name it (standard input).
	Name string
	// File is the name messages give the file (Patch.Name).
	File string
	// Meta is the file's metadata; nil for none (a replacements file).
	Meta *Metadata
}

// Relations are the requires: and conflicts: of a set of files, resolved
// to their members, and the order the files apply in. Immutable.
type Relations struct {
	// Order lists the members in the order they apply: the order given,
	// except that a file that requires others applies after them. Each
	// member is delayed only as far as its requirements make it.
	Order []int
	// Requires and Conflicts are, for each member, the members its
	// requires: names, and the members its conflicts: names or that name
	// it in theirs. A conflicts: that names no file names none.
	Requires, Conflicts [][]int
	// Errs are the problems of each member's metadata that no object or
	// value changes: a requirement that names no file or several, a file
	// that requires itself, a cycle. Such a member does not apply.
	Errs []error

	members []Member
	idx     *nameIndex
	pos     []int // each member's place in Order
}

// Relate resolves the metadata of members, which are in the order given.
// A name NAME is the file of that name in the same group when there is
// one, else the only file of that name in the set; GROUP/NAME is the file
// NAME of group GROUP. Names resolve among the members of the file's
// Scope only. It takes time linear in the members and the names
// their metadata give.
func Relate(members []Member) *Relations {
	r := &Relations{members: members, Requires: make([][]int, len(members)),
		Conflicts: make([][]int, len(members)), Errs: make([]error, len(members))}
	r.idx = newNameIndex(members)
	linked := map[link]bool{} // the relations recorded so far
	for i := range members {
		m := &members[i]
		if m.Meta == nil {
			continue
		}
		var errs ErrorList
		for _, req := range m.Meta.Requires {
			if err := r.require(i, req, linked); err != nil {
				errs = append(errs, err)
			}
		}
		for _, c := range m.Meta.Conflicts {
			for _, j := range r.idx.lookup(m, c.Name) {
				if l := (link{min(i, j), max(i, j), false}); j != i && !linked[l] {
					linked[l] = true
					r.Conflicts[i] = append(r.Conflicts[i], j)
					r.Conflicts[j] = append(r.Conflicts[j], i)
				}
			}
		}
		r.Errs[i] = errs.Err()
	}
	r.order()
	return r
}

// link is a relation between two members: from requires to, or (not
// requires) from and to conflict, from < to.
type link struct {
	from, to int
	requires bool
}

// require records that member i requires the file req names, once, or
// returns why it cannot.
func (r *Relations) require(i int, req FileName, linked map[link]bool) error {
	found := r.idx.lookup(&r.members[i], req.Name)
	switch {
	case len(found) == 0:
		return metaError(req.Pos, ErrRequirement, "requires %s, which names no patch file", req.Name)
	case len(found) > 1:
		return metaError(req.Pos, ErrRequirement, "requires %s, which names several files (%s); write GROUP/NAME", req.Name, r.files(found))
	case found[0] == i:
		return metaError(req.Pos, ErrRequirement, "requires itself")
	}
	if l := (link{i, found[0], true}); !linked[l] {
		linked[l] = true
		r.Requires[i] = append(r.Requires[i], found[0])
	}
	return nil
}

// files names the members of list, for messages.
func (r *Relations) files(list []int) string {
	names := make([]string, len(list))
	for i, j := range list {
		names[i] = r.members[j].File
	}
	return strings.Join(names, ", ")
}

// nameIndex finds members by name, by group and name, and by the name
// messages give them (the last member of a File).
type nameIndex struct {
	byName, byGroupName map[string][]int
	byFile              map[string]int
}

func newNameIndex(members []Member) *nameIndex {
	x := &nameIndex{byName: map[string][]int{}, byGroupName: map[string][]int{}, byFile: make(map[string]int, len(members))}
	for i, m := range members {
		x.byFile[m.File] = i
		if m.Name == "" {
			continue
		}
		name, groupName := m.Scope+"\x00"+m.Name, m.Scope+"\x00"+m.Group+"/"+m.Name
		x.byName[name] = append(x.byName[name], i)
		x.byGroupName[groupName] = append(x.byGroupName[groupName], i)
	}
	return x
}

// lookup resolves a name written in the file m.
func (x *nameIndex) lookup(m *Member, name string) []int {
	if strings.Contains(name, "/") {
		return x.byGroupName[m.Scope+"\x00"+name]
	}
	if own := x.byGroupName[m.Scope+"\x00"+m.Group+"/"+name]; len(own) > 0 {
		return own
	}
	return x.byName[m.Scope+"\x00"+name]
}

// order sorts the members topologically by their requirements, each as
// early as the order given and its requirements allow (Kahn's algorithm,
// the earliest ready member first). Members on a cycle get an error and
// come last, in the order given.
func (r *Relations) order() {
	n := len(r.members)
	waiting := make([]int, n)
	dependents := make([][]int, n)
	for i, reqs := range r.Requires {
		waiting[i] = len(reqs)
		for _, j := range reqs {
			dependents[j] = append(dependents[j], i)
		}
	}
	ready := &intHeap{}
	for i := range n {
		if waiting[i] == 0 {
			heap.Push(ready, i)
		}
	}
	r.Order = make([]int, 0, n)
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		r.Order = append(r.Order, i)
		for _, d := range dependents[i] {
			if waiting[d]--; waiting[d] == 0 {
				heap.Push(ready, d)
			}
		}
	}
	for i := range n {
		if waiting[i] > 0 {
			r.Order = append(r.Order, i)
			r.cycleError(i, waiting)
		}
	}
	r.pos = make([]int, n)
	for p, i := range r.Order {
		r.pos[i] = p
	}
}

// cycleError records the shortest cycle of requirements that member i
// is on, if it is on one (it may only require a member of one), at its
// requires: line.
func (r *Relations) cycleError(i int, waiting []int) {
	from := map[int]int{} // breadth-first, each member reached from
	queue := []int{i}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, j := range r.Requires[cur] {
			if _, seen := from[j]; seen || waiting[j] == 0 {
				continue
			}
			from[j] = cur
			if j == i {
				r.addCycle(i, from)
				return
			}
			queue = append(queue, j)
		}
	}
}

// addCycle records the cycle through i that from leads back along.
func (r *Relations) addCycle(i int, from map[int]int) {
	path := []int{i}
	for cur := from[i]; cur != i; cur = from[cur] {
		path = append(path, cur)
	}
	path = append(path, i)
	names := make([]string, len(path))
	for k, j := range path {
		names[len(path)-1-k] = r.members[j].File
	}
	// path runs backwards: i, the member that requires i, ..., i
	err := metaError(r.requiresPos(i, path[len(path)-2]), ErrRequiresCycle, "requires form a cycle: %s", strings.Join(names, " -> "))
	r.Errs[i] = append(asList(r.Errs[i]), err)
}

// requiresPos is where member i's requires: names member j.
func (r *Relations) requiresPos(i, j int) Position {
	for _, req := range r.members[i].Meta.Requires {
		for _, k := range r.idx.lookup(&r.members[i], req.Name) {
			if k == j {
				return req.Pos
			}
		}
	}
	return Position{File: r.members[i].File}
}

func asList(err error) ErrorList {
	var list ErrorList
	switch {
	case err == nil:
	case errors.As(err, &list):
	default:
		list = ErrorList{err}
	}
	return list
}

// intHeap is a min-heap of member indexes.
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// BuildsOn reports whether the file named later requires the file named
// earlier, directly or through other files: a field it sets over the
// other's is what it means to do, not a conflict. Names are Member.File.
// It visits only the files that later requires, directly or not.
func (r *Relations) BuildsOn(later, earlier string) bool {
	from, okFrom := r.idx.byFile[later]
	to, okTo := r.idx.byFile[earlier]
	if !okFrom || !okTo || from == to || len(r.Requires[from]) == 0 {
		return false
	}
	seen := map[int]bool{from: true}
	stack := []int{from}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, j := range r.Requires[cur] {
			if j == to {
				return true
			}
			if !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	return false
}
