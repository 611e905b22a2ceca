package drift

import "context"

// Admitter admits one stored object as an UPDATE by the webhook's
// ServiceAccount, the old object and the new being the stored object, and
// says what the answer would change: the webhook implements it over its
// admission path, with the same files, budgets and conditions.
type Admitter interface {
	Admit(ctx context.Context, kind Kind, obj map[string]any) (Admission, error)
}

// AdmitterFunc is a func that is an Admitter.
type AdmitterFunc func(ctx context.Context, kind Kind, obj map[string]any) (Admission, error)

// Admit calls f.
func (f AdmitterFunc) Admit(ctx context.Context, kind Kind, obj map[string]any) (Admission, error) {
	return f(ctx, kind, obj)
}

// Admission is what admitting an object now would change.
type Admission struct {
	// Ops are the JSON pointers of the answer's JSONPatch operations.
	Ops []string
	// Files are the files that would change the object, in the order
	// they apply: those that patched it, and those left out of the
	// UPDATE for a field it may not change (FileChange.Immutable). No
	// file: the object is as the registry would make it.
	Files []FileChange
}

// FileChange is one file that would change an object.
type FileChange struct {
	// File is the file's name, as the registry names it.
	File string
	// Fields are the JSON pointers of the fields it changes.
	Fields []string
	// Reconcile says that the file's metadata opts it in to reconcile
	// (apply.Meta.Reconcile).
	Reconcile bool
	// Immutable is the first field the file changes that an UPDATE of
	// the object's kind may not change (apply.ImmutableError.Field): the
	// API server would refuse the change, so the object is reported and
	// never reconciled for the file; "" when an UPDATE may apply it.
	Immutable string
}
