package drift

// Finding is an object the registry would change now, and the files that
// would change it.
type Finding struct {
	Ref   ObjectRef
	Files []FileChange
}

// Reconcilable reports whether a reconcile may update the object: a file
// that opts in to reconcile would change it, and an UPDATE may apply that
// file's change (FileChange.Immutable is ""). A file whose change the API
// server would refuse is reported, never reconciled: the UPDATE leaves it
// out of the object, as any UPDATE does.
func (f *Finding) Reconcilable() bool {
	for _, c := range f.Files {
		if c.Reconcile && c.Immutable == "" {
			return true
		}
	}
	return false
}

// FileNames are the names of the files that would change the object.
func (f *Finding) FileNames() []string {
	names := make([]string, len(f.Files))
	for i, c := range f.Files {
		names[i] = c.File
	}
	return names
}
