package kpatch

// ConflictsInOrder is ConflictsUpTo for files in the order they apply,
// with their order keys (keys[i] is the key of patches[i]; nil: every file
// in one layer). An override is not a conflict when it is intended: a
// file of a later tier or layer overrides every earlier one, and a write
// to a more specific target (OrderKey, Specificity) overrides one to a
// more generic target. Two writes to one field at the same level and
// specificity with different values are conflicts, and so is a write that
// overrides a more specific target's, which the files' order makes win
// (a generic section of a file that applies after a specific one).
func ConflictsInOrder(patches []*Patch, keys []OrderKey, limit int) (first []*Conflict, total int) {
	idx := conflictIndex{}
	seq := 0
	for i, p := range patches {
		if i > 0 && keys != nil && !keys[i].SameLevel(keys[i-1]) {
			idx = conflictIndex{} // every earlier write is of a lower level
		}
		mine := p.constantWrites()
		for j := range mine {
			w := &mine[j]
			n, b := idx.count(w)
			total += n
			if n > 0 && (limit < 0 || len(first) < limit) {
				first = b.conflicts(w, first, limit)
			}
		}
		for j := range mine {
			idx.add(&mine[j], seq)
			seq++
		}
	}
	return first, total
}
