package apply

import (
	"errors"
	"runtime/debug"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

// ReplacementsFile is a replacements file (kustomize's replacements:
// list). On its own, an object is its only target and first source, the
// others being Options.Sources (at admission: its Namespace and labelled
// ConfigMaps); in a Stream, it applies to every object at once and reads
// its sources among them, as kustomize build does.
type ReplacementsFile struct {
	Replacements *replacement.Replacements
	// Tenant says that the file is a tenant's: it reads the sources of
	// its own namespace only, never the fallback ones.
	Tenant bool
}

var _ Batch = (*ReplacementsFile)(nil)

// Name is the file's name.
func (f *ReplacementsFile) Name() string { return f.Replacements.Name() }

// Targets is nil: a replacement's select is no kpatch target (Kinds and
// MayTarget describe it).
func (f *ReplacementsFile) Targets() []*kpatch.Target { return nil }

// Kinds are the kinds the selects name literally, and whether a select
// may match other kinds.
func (f *ReplacementsFile) Kinds() ([]string, bool) { return f.Replacements.Kinds() }

// MayTarget reports whether a select may match an object of kind in
// namespace named name.
func (f *ReplacementsFile) MayTarget(kind, namespace, name string) bool {
	return f.Replacements.MayTarget(kind, namespace, name)
}

// Matches reports whether a target's select matches the object.
func (f *ReplacementsFile) Matches(o *Object) bool {
	return f.Replacements.Targets(o.Current(), o.Namespace())
}

// Meta says that a replacements file applies on every operation, never
// in audit mode, without conditions or metadata, ranked by its targets'
// selects; its sources and targets may be any field, managedFields too.
func (f *ReplacementsFile) Meta() Meta {
	return Meta{Operations: kpatch.AllOperations, ManagedFields: true, Specificity: f.Replacements.Specificity()}
}

// Check finds nothing: a replacements file's problems are all found when
// it parses, or on the objects.
func (f *ReplacementsFile) Check() []error { return nil }

// Enabled is always true: a replacements file has no metadata.
func (f *ReplacementsFile) Enabled() (bool, string, error) { return true, "", nil }

// EvalConditions does nothing: a replacements file has no conditions.
func (f *ReplacementsFile) EvalConditions(*Object) {}

// WithValues returns the file itself: replacements read no values.
func (f *ReplacementsFile) WithValues(*kpatch.Variables) File { return f }

// Apply runs the replacements on the object with the run's sources. A
// replacement whose source cannot be resolved is skipped, with a
// *ReplacementError whose Skipped is set, and the others apply; the file
// then counts as patched when they changed the object, else as failed.
// Any other failure, or a panic, leaves the object as it was.
func (f *ReplacementsFile) Apply(o *Object) (string, error) {
	cur := o.Current()
	out, err := f.applyObject(o, cur)
	switch {
	case err != nil && !(skippedOnly(err) && !jsonvalue.Equal(cur, out)):
		return Failed, err
	case jsonvalue.Equal(cur, out):
		return Unchanged, err
	}
	o.Set(out)
	return Patched, err
}

func (f *ReplacementsFile) applyObject(o *Object, cur map[string]any) (out map[string]any, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = cur, &PanicError{File: f.Name(), Value: v, Stack: debug.Stack()}
		}
	}()
	sources, fallback := o.Sources(f.Tenant)
	r := f.Replacements
	apiVersion, _ := cur["apiVersion"].(string)
	kind, _ := cur["kind"].(string)
	if o.opts.Schemas != nil && o.opts.Schemas(apiVersion, kind) != nil {
		// the object, the only target, is a custom resource of a known CRD
		r = r.TypedBy(kpatch.CustomFieldTypes(o.opts.Schemas))
	}
	out, err = r.ApplyObject(cur, sources, replacement.ObjectOptions{Namespace: o.Namespace(), Fallback: fallback})
	return out, replacementErrors(err)
}

// ApplyAll runs the replacements over the objects as one stream
// (replacement.Replacements.Apply), typing what they write into custom
// resources by the schemas of opts.
func (f *ReplacementsFile) ApplyAll(objs []map[string]any, opts kpatch.ApplyOptions) ([]map[string]any, error) {
	return f.Replacements.TypedBy(kpatch.CustomFieldTypes(opts.Schemas)).Apply(objs)
}

// Required is nil: a replacements file requires nothing.
func (f *ReplacementsFile) Required(map[string]any, *kpatch.ObjectRef, kpatch.ApplyOptions) []error {
	return nil
}

// replacementErrors turns ApplyObject's errors into *ReplacementError
// values, in a kpatch.ErrorList.
func replacementErrors(err error) error {
	var list kpatch.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	out := make(kpatch.ErrorList, 0, len(list))
	for _, e := range list {
		var re *replacement.Error
		if !errors.As(e, &re) {
			out = append(out, e)
			continue
		}
		out = append(out, &ReplacementError{Err: re, Skipped: errors.Is(re, replacement.ErrSource)})
	}
	return out
}

// skippedOnly reports whether err only says that replacements were
// skipped for unresolved sources: the file applied its other
// replacements.
func skippedOnly(err error) bool {
	var list kpatch.ErrorList
	if err == nil || !errors.As(err, &list) || len(list) == 0 {
		return false
	}
	for _, e := range list {
		var re *ReplacementError
		if !errors.As(e, &re) || !re.Skipped {
			return false
		}
	}
	return true
}
