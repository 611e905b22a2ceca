package kpatch

// Set if absent: an entry whose key ends in `?` (cpu?: 250m) sets its
// field only where the object holds no value there, absent or null, as
// the object is when the entry applies. The `?` is no part of the path:
// the key is read without it, and the entry's plan carries the mark.

// parseKey reads an entry's key, in a .kpatch file or a YAML patch file:
// its path, and the column of the `?` that ends it (0 without one).
func parseKey(text string, col int) (Path, int, *problem) {
	text, qcol := cutIfAbsent(text, col)
	key, err := parsePath(text, col)
	if err == nil {
		err = checkKey(key)
	}
	if err == nil && qcol > 0 {
		err = checkIfAbsent(key, qcol)
	}
	return key, qcol, err
}

// cutIfAbsent removes the `?` that ends a key's text, and returns the
// text without it and the column of the `?` (0 when the text does not end
// in one). An escaped `\?` is part of a field's name.
func cutIfAbsent(text string, col int) (string, int) {
	n := len(text)
	if n < 2 || text[n-1] != '?' || escaped(text, n-1) {
		return text, 0
	}
	return text[:n-1], col + n - 1
}

// escaped reports whether the byte at i is escaped: an odd run of '\'
// stands before it.
func escaped(text string, i int) bool {
	run := 0
	for j := i - 1; j >= 0 && text[j] == '\\'; j-- {
		run++
	}
	return run%2 == 1
}

// checkIfAbsent places the `?` of a key: it marks a field, a map key or
// an item by index, whose value it may set, not what adds, selects or
// removes items.
func checkIfAbsent(key Path, qcol int) *problem {
	last := &key[len(key)-1]
	switch {
	case isDeleteKey(key):
		return errorAt(qcol, ErrSyntax, "'?' sets a field only where it has no value; a delete sets nothing")
	case last.isInsertion():
		return errorAt(qcol, ErrSyntax, "'?' cannot follow an insertion, which finds the item's twin by itself; mark the item's fields with '?' under an insertion header")
	case last.Kind == Select || last.Kind == All:
		return errorAt(qcol, ErrSyntax, "'?' cannot follow a selector; mark a field of the items: %s.FIELD?", key.String())
	case blankEnd(key):
		return errorAt(qcol, ErrSyntax, "'?' follows the key directly, without a blank")
	}
	return nil
}

// blankEnd reports whether a key's last field ends in a blank, as the
// text before a `?` written apart does: `cpu ?`.
func blankEnd(key Path) bool {
	last := &key[len(key)-1]
	if last.Kind != Field || last.Bracketed || last.Name == "" {
		return false
	}
	c := last.Name[len(last.Name)-1]
	return c == ' ' || c == '\t'
}

// errIfAbsentRequired is `?` on an entry written ${required}, which sets
// nothing: the two say opposite things.
func errIfAbsentRequired(qcol int) *problem {
	return errorAt(qcol, ErrSyntax, "'?' gives a field a value where it has none, and ${required} gives none: drop the '?' to demand a value, or give the default as the value")
}

// errIfAbsentInPath is a `?` that ends a segment other than an entry's
// last, or a header's path.
// name is the field's, when the `?` ends one.
func errIfAbsentInPath(col int, name string) *problem {
	const msg = "'?' (set if absent) ends an entry's key only, not a header or a segment before the last"
	if name == "" {
		return errorAt(col, ErrSyntax, msg)
	}
	return errorAt(col, ErrSyntax, msg+"; a field whose name ends in '?' is written %s\\? or [%s?]", name, name)
}

// skipPresent reports whether a plan that sets a field only where it has
// no value leaves the value in its slot alone.
func (pl *plan) skipPresent(cur any, present bool) bool {
	return pl.ifAbsent && present && cur != nil
}

// defaultsOnly reports whether every entry of the patch that sets a
// value is set-if-absent: a file of defaults, which later files override
// as intended (OverwriteFinder does not report it).
func (p *Patch) defaultsOnly() bool {
	some := false
	for _, s := range p.sections {
		if s.merge != nil {
			return false
		}
		for _, op := range s.ops {
			if pl := op.generic; pl.act != actSet || !pl.ifAbsent {
				return false
			}
			some = true
		}
	}
	return some
}
