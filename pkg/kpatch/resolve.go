package kpatch

import "strings"

// resolve expands the shorthand of the path of an entry of s and checks
// it against the schema ks (nil: a kind without one).
func (pl *plan) resolve(ks *kindSchema, s *Section) {
	if err := pl.expandShorthand(ks); err != nil {
		if dotted := dottedName(s); err.err == ErrUnknownField && pl.steps[0].header && dotted != "" {
			err.msg += "; if the object's name holds a dot, bracket it: " + dotted
		}
		pl.fail(pl.stepCol(0), err)
		return
	}
	var root *typeNode
	if ks != nil {
		root = ks.root
	}
	pl.resolveTypes(root)
}

// expandShorthand prefixes the path's first field with where it lives:
// metadata for labels and annotations, the spec chain for the rest.
func (pl *plan) expandShorthand(ks *kindSchema) *problem {
	first := &pl.steps[0]
	if first.Kind != Field {
		return errorf(ErrSyntax, "a path starts with a field name, not %s", Path{*first}.String())
	}
	name := first.Name
	var prefix []string
	switch {
	case ks != nil && ks.root.fields[name] != nil:
		return nil
	case name == "labels" || name == "annotations":
		prefix = []string{"metadata"}
	case ks == nil:
		return nil
	default:
		for _, sp := range ks.specPaths {
			if nodeAt(ks.root, sp).fields[name] != nil {
				prefix = sp
				break
			}
		}
		if prefix == nil {
			places := []string{"the top level"}
			for _, sp := range ks.specPaths {
				places = append(places, strings.Join(sp, "."))
			}
			return errorf(ErrUnknownField, "%s has no field %q (looked in %s)", ks.gvk.Kind, name, strings.Join(places, ", "))
		}
	}
	steps := make([]Segment, 0, len(prefix)+len(pl.steps))
	for _, f := range prefix {
		steps = append(steps, Segment{Kind: Field, Name: f, header: true})
	}
	pl.steps = append(steps, pl.steps...)
	return nil
}

func nodeAt(n *typeNode, path []string) *typeNode {
	for _, f := range path {
		n = n.fields[f]
	}
	return n
}

// typeWalk is what resolveTypes knows about the step it is at.
type typeWalk struct {
	imageField bool   // the previous step was a string field named image
	mergeKey   string // the previous step was a list field with this merge key
}

// resolveTypes checks the steps against the schema below n, sets the leaf
// type, turns indexes on maps into keys, marks image parts, fields of
// every item of a list and the merge key of an insertion. With n nil (no
// schema) it only marks possible image parts.
func (pl *plan) resolveTypes(n *typeNode) {
	if n == nil {
		pl.markMaybeImagePart()
		return
	}
	var w typeWalk
	for i := range pl.steps {
		if n.kind == tAny {
			n = nil
			break
		}
		var err *problem
		if pl.steps[i].Kind == Field {
			n, err = pl.resolveField(i, n, &w)
		} else {
			n, err = pl.resolveListStep(i, n, &w)
		}
		if err != nil {
			pl.fail(pl.stepCol(i), err)
			return
		}
		if n == nil {
			break
		}
	}
	pl.leaf = n
}

// markMaybeImagePart marks a last `image.PART` of a path without a schema:
// an image part if the object holds a string there.
func (pl *plan) markMaybeImagePart() {
	steps := pl.steps
	k := len(steps)
	if pl.act != actInsert && k >= 2 && steps[k-2].Kind == Field && steps[k-2].Name == "image" &&
		steps[k-1].Kind == Field && isImagePart(steps[k-1].Name) {
		steps[k-1].Kind = maybeImagePart
	}
}

// resolveField resolves the Field step i on a node of type n.
func (pl *plan) resolveField(i int, n *typeNode, w *typeWalk) (*typeNode, *problem) {
	st := &pl.steps[i]
	at := func() string { return Path(pl.steps[:i]).String() }
	imageField := w.imageField
	*w = typeWalk{}
	if n.kind == tList && (n.elem.kind == tStruct || n.elem.kind == tMap || n.elem.kind == tAny) {
		n, st.overItems = n.elem, true // a field of every item
	}
	switch n.kind {
	case tStruct:
		f := n.fields[st.Name]
		if f == nil {
			return nil, errorf(ErrUnknownField, "%s has no field %q at %s", n.name, st.Name, at())
		}
		w.imageField = st.Name == "image" && f.kind == tString
		w.mergeKey = n.mergeKeys[st.Name]
		return f, nil
	case tMap:
		return n.elem, nil
	case tAny:
		return nil, nil
	case tString:
		if imageField && i == len(pl.steps)-1 && isImagePart(st.Name) && pl.act != actInsert {
			st.Kind = imagePart
			return stringNode, nil
		}
		return nil, errorf(ErrType, "%s is a string; it has no field %q", at(), st.Name)
	}
	return nil, errorf(ErrType, "%s is %s; it has no field %q", at(), n.describe(), st.Name)
}

// resolveListStep resolves an index, selector or list operation.
func (pl *plan) resolveListStep(i int, n *typeNode, w *typeWalk) (*typeNode, *problem) {
	st := &pl.steps[i]
	at := func() string { return Path(pl.steps[:i]).String() }
	mergeKey := w.mergeKey
	*w = typeWalk{}
	if st.Kind == Index {
		switch n.kind {
		case tList:
			return n.elem, nil
		case tMap:
			st.Kind = Field // the digits as written are the key
			return n.elem, nil
		}
		return nil, errorf(ErrType, "%s is %s; an index needs a list", at(), n.describe())
	}
	if n.kind != tList {
		return nil, errorf(ErrType, "%s is %s; %s needs a list", at(), n.describe(), Path{*st}.String())
	}
	if st.ByMatch || st.Kind == Select {
		if err := checkSelectorKey(n.elem, st.Key); err != nil {
			return nil, err
		}
	}
	if st.isInsertion() {
		pl.mergeKey = mergeKey
	}
	return n.elem, nil
}

// checkSelectorKey checks a selector's key path against the items' type.
func checkSelectorKey(n *typeNode, key []string) *problem {
	for _, k := range key {
		switch n.kind {
		case tStruct:
			f := n.fields[k]
			if f == nil {
				return errorf(ErrUnknownField, "the items (%s) have no field %q to select by", n.name, k)
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
