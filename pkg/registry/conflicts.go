package registry

import (
	"slices"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// MaxConflicts is how many contested fields a ConflictReport keeps: the
// ones the webhook logs and reports in Events. kpatch_registry_conflicts
// counts them all.
const MaxConflicts = 100

// ConflictReport is the conflicts of one registry: fields that files set
// to different values, where the last file in registry order wins, one
// per contested field and target whatever the number of files. It is
// immutable.
type ConflictReport struct {
	// First are the first MaxConflicts contested fields, in the engine's
	// order (kpatch.FieldConflicts): each a conflict of the winner with
	// an earlier file, whose Error names the field, its files and the
	// winner.
	First []*kpatch.Conflict
	// Total counts every contested field.
	Total int
	// active are the patches the report was computed from, and keys
	// their order keys.
	active []*kpatch.Patch
	keys   []kpatch.OrderKey
}

// FindConflicts finds the contested fields of the active patches of reg:
// an override by a later layer or a more specific target is intended and
// no conflict (kpatch.FieldConflicts), and so is an override by a file
// that builds on the other (requires: it, directly or not). Its cost
// grows with the number of files, not of pairs of them.
func FindConflicts(reg *Registry) *ConflictReport {
	var intended kpatch.Intended
	if reg.relations != nil {
		intended = reg.relations.BuildsOn
	}
	fields := kpatch.FieldConflicts(reg.patches, reg.keys, intended)
	first := make([]*kpatch.Conflict, 0, min(len(fields), MaxConflicts))
	for _, f := range fields[:min(len(fields), MaxConflicts)] {
		first = append(first, f.Conflict())
	}
	return &ConflictReport{First: first, Total: len(fields), active: reg.patches, keys: reg.keys}
}

// Covers reports whether r was computed from the same patches as reg
// applies: the compiler reuses the patch of every file it did not
// recompile, so a sync that changed no file (nor a layer) has the same
// conflicts.
func (r *ConflictReport) Covers(reg *Registry) bool {
	return r != nil && slices.Equal(r.active, reg.patches) && slices.Equal(r.keys, reg.keys)
}

// NewSince returns the conflicts of r that previous did not list.
func (r *ConflictReport) NewSince(previous *ConflictReport) []*kpatch.Conflict {
	known := map[string]bool{}
	if previous != nil {
		for _, c := range previous.First {
			known[c.Error()] = true
		}
	}
	var out []*kpatch.Conflict
	for _, c := range r.First {
		if !known[c.Error()] {
			out = append(out, c)
		}
	}
	return out
}
