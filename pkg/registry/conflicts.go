package registry

import (
	"slices"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// MaxConflicts is how many conflicts a ConflictReport keeps: the ones the
// webhook logs and reports in Events. kpatch_registry_conflicts counts
// them all.
const MaxConflicts = 100

// ConflictReport is the conflicts of one registry: fields that two files
// set to different values, where the later file in registry order wins.
// It is immutable.
type ConflictReport struct {
	// First are the first MaxConflicts conflicts, in the engine's order.
	First []*kpatch.Conflict
	// Total counts every conflict.
	Total int
	// active are the patches the report was computed from, and keys
	// their order keys.
	active []*kpatch.Patch
	keys   []kpatch.OrderKey
}

// FindConflicts finds the conflicts between the active patches of reg:
// an override by a later layer or a more specific target is intended and
// no conflict (kpatch.ConflictsInOrder).
// A file that builds on another (requires: it, directly or not) overrides
// it on purpose: no conflict either (those among the first MaxConflicts
// are left out of First and Total).
func FindConflicts(reg *Registry) *ConflictReport {
	first, total := kpatch.ConflictsInOrder(reg.patches, reg.keys, MaxConflicts)
	if reg.relations != nil {
		kept := first[:0:0]
		for _, c := range first {
			if reg.relations.BuildsOn(c.Later.File, c.Earlier.File) {
				total--
				continue
			}
			kept = append(kept, c)
		}
		first = kept
	}
	return &ConflictReport{First: first, Total: total, active: reg.patches, keys: reg.keys}
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
