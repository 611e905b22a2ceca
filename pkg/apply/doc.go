// Package apply is the one loop that applies files to objects: every
// file kind implements File (PatchFile for .kpatch and YAML patch files,
// ReplacementsFile for replacements files; a new kind implements it the
// same way), and Run applies files, in the order given, to objects, file
// by file, each to the result of the ones before. The webhook's handler,
// its debug trace, and kpatch apply, test and explain all run this loop;
// a trace is an Observer of it, not a copy.
package apply

import "kpatch.dev/kpatch/pkg/kpatch"

// File is one file of a registry or of a command line, whatever its kind.
type File interface {
	// Name is the file's name in messages, metrics and reports.
	Name() string
	// Targets are the targets the file's headers write, for the indexes
	// that find an admission request's files before decoding its object
	// and for the webhook's managed rules; nil for a kind whose targets
	// are no kpatch targets (Kinds and MayTarget then describe them).
	Targets() []*kpatch.Target
	// Kinds are the kinds the file may target, as the registry indexes
	// them (lower case for a patch file, kpatch.AnyKind for a kind glob
	// that may match custom resources), and whether it may target kinds
	// it does not name (a kind pattern the index cannot name).
	Kinds() (kinds []string, anyKind bool)
	// MayTarget reports whether the file may target an object of kind in
	// namespace named name (any name when name is ""), from these alone:
	// a superset of Matches, before the object is decoded.
	MayTarget(kind, namespace, name string) bool
	// Matches reports whether the file targets the decoded object.
	Matches(o *Object) bool
	// WithValues returns the file bound to values, which its ${values.*}
	// references read; a kind that reads none returns itself.
	WithValues(values *kpatch.Variables) File
	// Apply applies the file to the object (o.Current), within the
	// object's budget, and sets the result (o.Set) unless the file failed,
	// which leaves the object as it was. The result says what the file
	// did; err says why it failed, or, with Patched or Unchanged, what it
	// left out (a replacement whose source is missing, a section whose
	// condition could not be evaluated). A file with conditions
	// evaluates them with o.Eval, and says Unmet when they leave it out
	// of the object.
	Apply(o *Object) (result string, err error)
	// Required returns the problems the file finds in obj once every file
	// has applied to it, ref being the object as the file matched it and
	// opts the engine's options the files applied with: the fields it
	// marks ${required} that nothing set.
	Required(obj map[string]any, ref *kpatch.ObjectRef, opts kpatch.ApplyOptions) []error
	// Meta is how the file applies, as its kind and metadata say, computed
	// when it compiled: the operations it applies on, audit mode, whether
	// it has conditions, whose condition budget it spends, its metadata
	// (relations, layer, description) and specificity. A file that wraps another
	// forwards its Meta, changing only what it decides itself (a
	// tenant's file is its tenant's).
	Meta() Meta
	// EvalConditions evaluates, ahead of its Apply, the conditions of
	// the file that concern the object, charged to the file's owner, and
	// keeps their results on the object for Apply: the loop calls it for
	// the registry admin's files before any file applies, so that no
	// other file's conditions delay them. A file without conditions, or
	// one that does not apply, does nothing.
	EvalConditions(o *Object)
	// Enabled reports whether the file applies with the values it is
	// bound to (its `enabled:` metadata); when it does not, why says so
	// as people read it ("enabled: false"). err is an `enabled:` that
	// cannot be evaluated with them. A kind without metadata is always
	// enabled.
	Enabled() (on bool, why string, err error)
	// Check reports, without an object, what compiling the file leaves
	// open (kpatch lint, /validate-registry): a value its variables give
	// that cannot apply, and, as warnings that wrap
	// kpatch.ErrNotIdempotent, what changes an object again each time the
	// file runs. A kind with nothing to check returns nil.
	Check() []error
}

// Batch is a File kind that reads other objects than the one it applies
// to (a replacements file reads its sources among them): in a Stream run
// it applies to all the objects at once, as kustomize build does.
type Batch interface {
	File
	// ApplyAll applies the file to objs at once and returns every object,
	// in order; on failure it returns objs unchanged and the error. opts
	// are the engine's options of the run (the schemas of custom
	// resources).
	ApplyAll(objs []map[string]any, opts kpatch.ApplyOptions) ([]map[string]any, error)
}

// The results of a file on an object.
const (
	// Patched is a file that changed the object.
	Patched = "patched"
	// Unchanged is a file that applied and found the object as it says
	// already.
	Unchanged = "unchanged"
	// Failed is a file that failed on the object and left it untouched.
	Failed = "failed"
	// Unmatched is a file that does not target the object, or not on the
	// run's operation (reported to an Observer only).
	Unmatched = "unmatched"
	// Disabled is a file whose enabled: metadata is false (Disabled).
	Disabled = "disabled"
	// WouldPatch is a file in audit mode that would have changed the
	// object: it was evaluated on it, and the object left as it was.
	WouldPatch = "would-patch"
	// Unmet is a file whose condition (# kpatch:when:) does not hold on
	// the object, or all of whose sections that target the object have
	// conditions that do not hold: it does not apply there, as if it did
	// not target the object (reported to an Observer only).
	Unmet = "unmet"
	// Immutable is a file left out of an object on an UPDATE: its changes
	// touch a field that an UPDATE of the object's kind may not change
	// (immutable.go). It changed nothing, and is no problem of the object.
	Immutable = "immutable"
)
