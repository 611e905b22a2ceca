package kpatch

import "strings"

// resolve builds the plan's steps from the route of an entry of s: the
// shorthand expanded, each step checked against the schema ks (nil: a
// kind without one).
func (pl *plan) resolve(ks *kindSchema, s *Section, r *route) {
	rest := r.steps
	prefix, err := shorthandPrefix(ks, r.steps[0])
	if ks != nil && s.Target.kindForm() == kindSet {
		prefix, rest, err = workloadPrefix(ks, r.steps)
	}
	if err != nil {
		if dotted := dottedName(s); err.err == ErrUnknownField && dotted != "" {
			err.msg += "; if the object's name holds a dot, bracket it: " + dotted
		}
		pl.steps = r.steps
		pl.fail(pl.stepCol(0), err)
		return
	}
	pl.steps = make([]step, 0, len(prefix)+len(rest))
	pl.steps = append(append(pl.steps, prefix...), rest...)
	var root *typeNode
	if ks != nil {
		root = ks.root
	}
	pl.resolveTypes(root)
}

// shorthandPrefix is where a path's first field lives when it is not at
// the top level: metadata for labels and annotations, the spec chain for
// the rest.
func shorthandPrefix(ks *kindSchema, first step) ([]step, *problem) {
	f, ok := first.(*fieldStep)
	if !ok {
		return nil, errorf(ErrSyntax, "a path starts with a field name, not %s", stepText(first))
	}
	switch {
	case ks != nil && ks.root.fields[f.name] != nil:
		return nil, nil
	case f.name == "labels" || f.name == "annotations":
		return metadataPrefix, nil
	case ks == nil:
		return nil, nil
	}
	for i, sp := range ks.specPaths {
		if fieldNode(nodeAt(ks.root, sp), f.name) != nil {
			return ks.specSteps[i], nil
		}
	}
	places := []string{"the top level"}
	for _, sp := range ks.specPaths {
		places = append(places, strings.Join(sp, "."))
	}
	return nil, unknownField(f.name, ks.shorthandNames, "%s has no field %q (looked in %s)", ks.gvk.Kind, f.name, strings.Join(places, ", "))
}

// workloadPrefix is where a path of @workload starts in the kind ks: the
// object's metadata for metadata, labels and annotations; the pod
// template's for template.metadata (the Pod's own for a Pod); the pod
// spec for the rest. It returns the prefix and the steps that follow it.
func workloadPrefix(ks *kindSchema, steps []step) ([]step, []step, *problem) {
	f, ok := steps[0].(*fieldStep)
	if !ok {
		return nil, nil, errorf(ErrSyntax, "a path starts with a field name, not %s", stepText(steps[0]))
	}
	switch f.name {
	case "metadata":
		return nil, steps, nil
	case "labels", "annotations":
		return metadataPrefix, steps, nil
	case "template":
		if len(steps) > 1 {
			if m, ok := steps[1].(*fieldStep); ok && m.name == "metadata" {
				return ks.podMetaSteps, steps[1:], nil
			}
		}
		return nil, nil, errorf(ErrUnknownField, "in @workload, template is only followed by metadata (the pod's labels and annotations); the pod spec's fields are written without a prefix, such as containers or serviceAccountName")
	}
	if fieldNode(schemas.podSpec, f.name) == nil {
		return nil, nil, unknownField(f.name, fieldNames(schemas.podSpec), "a pod spec has no field %q: in @workload, paths start at the pod spec (containers, allContainers, serviceAccountName, ...), with template.metadata for the pod's labels and annotations and metadata for the object's own", f.name)
	}
	return ks.podSpecSteps, steps, nil
}

// metadataPrefix is where labels and annotations live.
var metadataPrefix = prefixSteps([]string{"metadata"})

// prefixTable holds one copy of each shorthand prefix, so that the plans
// of a kind's versions hold the same steps and can be shared.
type prefixTable map[string][]step

// prefixSteps are the field steps of a shorthand's prefix, shared with
// every other user of the table.
func (t prefixTable) prefixSteps(path []string) []step {
	key := strings.Join(path, ".")
	if steps, ok := t[key]; ok {
		return steps
	}
	t[key] = prefixSteps(path)
	return t[key]
}

// prefixSteps are the field steps of a shorthand's prefix.
func prefixSteps(path []string) []step {
	steps := make([]step, len(path))
	for i, name := range path {
		steps[i] = &fieldStep{name: name}
	}
	return steps
}

func nodeAt(n *typeNode, path []string) *typeNode {
	for _, f := range path {
		n = n.fields[f]
	}
	return n
}

// typeWalk is what resolving a plan's steps knows about the step at i.
type typeWalk struct {
	pl   *plan
	i    int
	prev typeFacts // what the step before told
}

// typed is a step resolved against a schema.
type typed struct {
	step step      // the step the plan keeps: a more precise one when the type tells, such as an image part
	node *typeNode // the type of what the step reaches; nil when no schema says
	next typeFacts // what the step tells the step after it
}

// typeFacts are what a step tells the step after it.
type typeFacts struct {
	imageField bool   // a string field named image
	mergeKey   string // a list field with this merge key
}

// at is the path before the step, for messages.
func (w typeWalk) at() string { return pathText(w.pl.steps[:w.i]) }

// last reports whether the step ends the path.
func (w typeWalk) last() bool { return w.i == len(w.pl.steps)-1 }

// resolveTypes checks the steps against the schema below n and sets the
// leaf type; each step may become a more precise one (see step.resolve).
// With n nil (no schema) it only marks a possible image part.
func (pl *plan) resolveTypes(n *typeNode) {
	if n == nil {
		pl.markMaybeImagePart()
		pl.markAllContainers()
		return
	}
	w := typeWalk{pl: pl}
	for w.i = range pl.steps {
		if n.kind == tAny {
			n = nil
			break
		}
		t, err := pl.steps[w.i].resolve(w, n)
		if err != nil {
			pl.fail(pl.stepCol(w.i), withFieldHint(err, n, pl.steps[w.i]))
			return
		}
		pl.steps[w.i], w.prev = t.step, t.next
		if n = t.node; n == nil {
			break
		}
	}
	pl.leaf = n
}

// markMaybeImagePart marks a last `image.PART` of a path without a schema:
// an image part if the object holds a string there.
func (pl *plan) markMaybeImagePart() {
	k := len(pl.steps)
	if pl.act == actInsert || k < 2 {
		return
	}
	image, ok1 := pl.steps[k-2].(*fieldStep)
	part, ok2 := pl.steps[k-1].(*fieldStep)
	if ok1 && ok2 && image.name == "image" && isImagePart(part.name) {
		pl.steps[k-1] = maybeImagePartStep{imagePartStep{part}}
	}
}

// checkSelectorKey checks a selector's key path against the items' type.
func checkSelectorKey(n *typeNode, key []string) *problem {
	for _, k := range key {
		switch n.kind {
		case tStruct:
			f := n.fields[k]
			if f == nil {
				return unknownField(k, fieldNames(n), "the items (%s) have no field %q to select by", n.name, k)
			}
			n = f
		case tMap:
			n = n.elem
		case tAny:
			return nil
		default:
			return errorf(ErrType, "the items are %s; a selector needs objects", n.describe())
		}
	}
	return nil
}

func isImagePart(name string) bool {
	switch name {
	case "registry", "repository", "tag", "digest":
		return true
	}
	return false
}
