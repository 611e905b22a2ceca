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
	// Conditional says that the file has conditions (`# kpatch:when:`):
	// its run reads Options.Admission.
	Conditional bool
	// Owner is whose condition budget the file's conditions spend: ""
	// for the registry admin's files, the namespace for a tenant's. Each
	// owner has a budget of its own per object (Admission.CostBudget).
	Owner string
}
