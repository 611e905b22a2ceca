package apply

import "kpatch.dev/kpatch/pkg/kpatch"

// Meta is what a file's kind and metadata say of how it applies, read by
// the loop and its callers through File.Meta, whatever wraps the file.
type Meta struct {
	// Operations are the admission operations the file applies on (a
	// patch file's `# kpatch:operations:`); on any other, it does not
	// apply, as a file that does not target the object.
	Operations kpatch.Operations
	// Audit says that the file is in audit mode (`# kpatch:mode:
	// audit`): its Apply evaluates it on the object and leaves the
	// object as it was, saying WouldPatch where it would have changed
	// it, so that the files after it see the object as if it were not
	// there; whatever befalls it is no problem of the object.
	Audit bool
	// Conditional says that the file has conditions (`# kpatch:when:`)
	// or CEL expressions (`${cel: EXPR}` values, `# kpatch:foreach:`):
	// its run reads Options.Admission.
	Conditional bool
	// ManagedFields says that the file may read or write the object's
	// metadata.managedFields (kpatch.Patch.ReadsManagedFields; always,
	// for a replacements file): when no file that applies to an object
	// may, it is decoded without them.
	ManagedFields bool
	// Reconcile says that the file opts in to the reconcile of existing
	// objects (`# kpatch:reconcile: true`): an object the drift scan
	// finds it would change now is updated through the API server
	// (docs/drift.md). A replacements file never does.
	Reconcile bool
	// Owner is whose condition budget the file's conditions spend: ""
	// for the registry admin's files, the namespace for a tenant's. Each
	// owner has a budget of its own per object (Admission.CostBudget).
	Owner string
	// Metadata are what the file says of itself (`enabled:`,
	// `requires:`, `conflicts:`, `description:`, `# kpatch:layer:`),
	// as it compiled; nil for a kind without metadata (a replacements
	// file), which relates to no file and is always enabled.
	Metadata *kpatch.Metadata
	// Specificity ranks the file from the generic to the specific within
	// its layer: a patch file's targets', a replacements file's selects'.
	Specificity kpatch.Specificity
}

// Layer is the layer the file gives itself, and whether it gives one.
func (m Meta) Layer() (int, bool) {
	if m.Metadata == nil || !m.Metadata.Layer.Set {
		return 0, false
	}
	return m.Metadata.Layer.Value, true
}

// Description is what the file says it does, for people; "" when it
// says nothing.
func (m Meta) Description() string {
	if m.Metadata == nil {
		return ""
	}
	return m.Metadata.Description
}
