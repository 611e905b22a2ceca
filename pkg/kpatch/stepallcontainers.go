package kpatch

import (
	"slices"
	"strings"
)

// allContainersField is the pseudo-list of every container of a pod
// spec: containers, initContainers and ephemeralContainers.
const allContainersField = "allContainers"

// containerLists are the lists allContainers stands for, in the order
// they are patched.
var containerLists = [...]string{"containers", "initContainers", "ephemeralContainers"}

// notForEphemeral are the container fields an ephemeral container cannot
// have (the API server refuses them): entries through allContainers that
// set them leave ephemeral containers alone.
var notForEphemeral = []string{"ports", "resources", "resizePolicy", "restartPolicy", "lifecycle", "livenessProbe", "readinessProbe", "startupProbe"}

// allContainersStep is the pseudo-list allContainers: the steps after
// it run on each container list of the map it meets that exists. A
// selector must match in one of them; an insertion adds to containers
// unless a list already holds the item's twin.
type allContainersStep struct {
	col int
	// ephemeral is whether the path may reach ephemeral containers: it
	// sets no field they cannot have, and does not insert.
	ephemeral bool
}

// newAllContainersStep is the step of allContainers followed by rest.
func newAllContainersStep(col int, rest []step) *allContainersStep {
	x := &allContainersStep{col: col, ephemeral: true}
	for _, st := range rest {
		switch f := st.(type) {
		case *insertStep:
			x.ephemeral = false
		case *fieldStep:
			x.ephemeral = x.ephemeral && !slices.Contains(notForEphemeral, f.name)
			return x
		case itemsFieldStep:
			x.ephemeral = x.ephemeral && !slices.Contains(notForEphemeral, f.name)
			return x
		}
	}
	return x
}

// hasContainerLists reports whether a struct holds the lists that
// allContainers stands for: a pod spec.
func hasContainerLists(n *typeNode) bool {
	c, i := n.fields["containers"], n.fields["initContainers"]
	return c != nil && i != nil && c.kind == tList && i.kind == tList
}

// fieldNode is the type of a struct's field, with allContainers the type
// of containers where the struct has container lists.
func fieldNode(n *typeNode, name string) *typeNode {
	if n == nil || n.kind != tStruct {
		return nil
	}
	if f := n.fields[name]; f != nil {
		return f
	}
	if name == allContainersField && hasContainerLists(n) {
		return n.fields["containers"]
	}
	return nil
}

func (x *allContainersStep) column() int { return x.col }

func (x *allContainersStep) write(b *strings.Builder, first bool) {
	writeBare(b, allContainersField, first)
}

// listTokens are those of containers: an insertion through allContainers
// adds to containers.
func (x *allContainersStep) listTokens(out []listToken) []listToken {
	return append(out, listToken{kind: 'f', text: "containers"})
}

// resolve is reached only for a step already resolved: fieldStep turns
// allContainers into this step.
func (x *allContainersStep) resolve(w typeWalk, n *typeNode) (typed, *problem) {
	return resolveAllContainers(w, n, x.col)
}

// resolveAllContainers resolves allContainers on the struct n.
func resolveAllContainers(w typeWalk, n *typeNode, col int) (typed, *problem) {
	if w.last() {
		return typed{}, errorf(ErrSyntax, "allContainers is every container list; it cannot be set or deleted as a whole: write to its items, as in allContainers.image or allContainers[name=main]")
	}
	if _, ok := w.pl.steps[w.i+1].(*indexStep); ok {
		return typed{}, errorf(ErrSyntax, "allContainers is several lists; select its items with [name=NAME] or [*], not by index")
	}
	return typed{
		step: newAllContainersStep(col, w.pl.steps[w.i+1:]),
		node: n.fields["containers"],
		next: typeFacts{mergeKey: n.mergeKeys["containers"]},
	}, nil
}

// markAllContainers turns allContainers, written bare, into its step in
// a plan without a schema.
func (pl *plan) markAllContainers() {
	for i, st := range pl.steps {
		if f, ok := st.(*fieldStep); ok && f.name == allContainersField && !f.bracketed && i < len(pl.steps)-1 {
			pl.steps[i] = newAllContainersStep(f.col, pl.steps[i+1:])
		}
	}
}

// apply runs the steps after allContainers on each container list of
// the pod spec cur.
func (x *allContainersStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	var spec map[string]any
	switch v := cur.(type) {
	case map[string]any:
		spec = v
	case nil:
		if !isInsertion(c.pl.steps[c.i+1]) {
			return nil
		}
		spec = a.newMap()
		a.set(s, spec)
	default:
		return c.fail(errorf(ErrType, "%s is %s, not a map; it has no containers", c.at(), describeValue(cur)))
	}
	switch next := c.pl.steps[c.i+1].(type) {
	case *insertStep:
		return x.insert(a, s, spec, c)
	case *indexStep:
		return c.fail(errorf(ErrSyntax, "allContainers is several lists; select its items with [name=NAME] or [*], not by index"))
	case *selectStep:
		if !c.deleting() && !x.anyMatch(spec, &next.match) {
			if a.filtering {
				return nil
			}
			return c.fail(errorf(ErrNoMatch, "no container of %s matches %s", x.listsText(c), next.match.String()))
		}
		return x.each(a, s, spec, c, &next.match)
	}
	return x.each(a, s, spec, c, nil)
}

// lists are the names of the lists the step reaches.
func (x *allContainersStep) lists() []string {
	if x.ephemeral {
		return containerLists[:]
	}
	return containerLists[:2]
}

// listsText names the lists of the pod spec at the cursor, for messages.
func (x *allContainersStep) listsText(c cursor) string {
	at := c.at()
	if at != "" {
		at += "."
	}
	names := x.lists()
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = at + n
	}
	return strings.Join(out, ", ")
}

// anyMatch reports whether an item of one of the lists matches m.
func (x *allContainersStep) anyMatch(spec map[string]any, m *match) bool {
	for _, name := range x.lists() {
		list, _ := spec[name].([]any)
		if slices.ContainsFunc(list, m.matches) {
			return true
		}
	}
	return false
}

// each runs the steps after allContainers on each list that exists (and
// that holds an item m matches, when m is set).
func (x *allContainersStep) each(a *applier, s slot, spec map[string]any, c cursor, m *match) *problem {
	var w map[string]any
	for k, name := range x.lists() {
		list, isList := spec[name].([]any)
		if _, present := spec[name]; !present || isList && m != nil && !slices.ContainsFunc(list, m.matches) {
			continue
		}
		if w == nil {
			w = a.writableMap(s, spec)
		}
		if err := c.enterList(k).next(a, slot{m: w, key: name}); err != nil {
			return err
		}
	}
	return nil
}

// insert adds the insertion's item to containers, or updates its twin in
// initContainers: container names are unique across the lists.
func (x *allContainersStep) insert(a *applier, s slot, spec map[string]any, c cursor) *problem {
	item := c.val
	if c.pl.build != nil {
		built, err := a.build(c.pl, c.vars)
		if err != nil {
			return err
		}
		item = builtItem{built}
	}
	target := "containers"
	if init, ok := spec["initContainers"].([]any); ok && twinByKey(init, itemValue(item), c.pl.mergeKey) >= 0 {
		target = "initContainers"
	}
	w := a.writableMap(s, spec)
	c.val = item
	return c.next(a, slot{m: w, key: target})
}

// builtItem is an insertion's item that allContainers built already.
type builtItem struct{ m map[string]any }

// itemValue is an insertion's item, unwrapped.
func itemValue(v any) any {
	if b, ok := v.(builtItem); ok {
		return b.m
	}
	return v
}

// twinByKey is the index of the item of list that has item's merge key
// value, or -1; no key, or an item without it, has no twin.
func twinByKey(list []any, item any, mergeKey string) int {
	if mergeKey == "" {
		mergeKey = "name"
	}
	key, ok := fieldOf(item, mergeKey)
	if !ok {
		return -1
	}
	for j, it := range list {
		if v, ok := fieldOf(it, mergeKey); ok && equalValue(v, key) {
			return j
		}
	}
	return -1
}
