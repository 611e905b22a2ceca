package apply

import (
	"errors"
	"runtime/debug"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// PatchFile is a .kpatch or YAML patch file: a compiled kpatch.Patch.
type PatchFile struct{ Patch *kpatch.Patch }

var _ File = PatchFile{}

// Name is the patch's file name.
func (f PatchFile) Name() string { return f.Patch.Name() }

// Targets are the targets of the patch's merge entries and headers
// (kpatch.Patch.HeaderTargets).
func (f PatchFile) Targets() []*kpatch.Target { return f.Patch.HeaderTargets() }

// Kinds are the lower-case kinds the patch targets (kpatch.Patch.Kinds),
// kpatch.AnyKind among them for a kind glob that may match custom
// resources.
func (f PatchFile) Kinds() ([]string, bool) { return f.Patch.Kinds(), false }

// MayTarget reports whether a target of the patch may address an object
// of kind in namespace named name, whatever its API group.
func (f PatchFile) MayTarget(kind, namespace, name string) bool {
	for _, t := range f.Targets() {
		probe := *t
		probe.HasGroup = false
		if name == "" {
			probe.Name, probe.NameLiteral = "*", false
		}
		if probe.MatchesKind(kind) && probe.Matches(&kpatch.ObjectRef{Kind: kind, Namespace: namespace, Name: name}) {
			return true
		}
	}
	return false
}

// Matches reports whether a target of the patch addresses the object as
// the files match it.
func (f PatchFile) Matches(o *Object) bool { return f.Patch.Targets(o.ref) }

// WithValues returns the patch bound to values.
func (f PatchFile) WithValues(values *kpatch.Variables) File {
	return PatchFile{f.Patch.WithVariables(values)}
}

// Meta is what the patch's metadata say: its operations, its mode,
// whether it has conditions, whether it may read managedFields, whether
// it reconciles, its metadata and specificity. Its owner is the admin: a tenant's file
// wraps it.
func (f PatchFile) Meta() Meta {
	return Meta{Operations: f.Patch.Operations(), Audit: f.Patch.Audit(), Conditional: f.Patch.Conditions() != nil || f.Patch.HasExpressions(),
		ManagedFields: f.Patch.ReadsManagedFields(), Reconcile: f.Patch.Reconcile(), Metadata: f.Patch.Metadata(), Specificity: f.Patch.Specificity()}
}

// Check is what Patch.Check finds in the patch.
func (f PatchFile) Check() []error { return f.Patch.Check() }

// Enabled evaluates the patch's enabled: with its variables.
func (f PatchFile) Enabled() (bool, string, error) {
	on, err := f.Patch.Enabled()
	if err != nil || on {
		return on, "", err
	}
	return false, f.Patch.DisabledReason(), nil
}

// EvalConditions evaluates the conditions of the patch that concern the
// object (the file's own, and those of the sections that target it) and
// keeps their results for Apply.
func (f PatchFile) EvalConditions(o *Object) {
	for _, c := range f.Patch.Conditions() {
		if !c.Item && (c.Section < 0 || f.Patch.SectionTargets(c.Section, o.ref)) {
			o.evalAhead(c, f.Patch.Variables())
		}
	}
}

// Apply applies the patch, atomically: a patch that fails, runs out of
// its budget or panics (a *PanicError) leaves the object as it was. Its
// conditions decide first: the file's own leaves the whole file out
// (Unmet), a section's that section; one that cannot be evaluated counts
// as not holding, with its error (the file then Failed, or, for a
// section, Patched or Unchanged with the error). A patch in audit mode is
// applied to a copy, and the object left as it was: WouldPatch when the
// copy differs.
func (f PatchFile) Apply(o *Object) (string, error) {
	p := f.Patch
	var cerrs kpatch.ErrorList
	if conds := p.Conditions(); conds != nil {
		if p, cerrs = conditioned(o, p, conds); p == nil && cerrs != nil {
			return Failed, cerrs
		}
		if p == nil || cerrs == nil && !p.AppliesTo(o.ref) {
			return Unmet, nil
		}
	}
	if p != f.Patch {
		if o.file == nil {
			o.file = &Conditions{}
		}
		o.file.Applied = PatchFile{p}
	}
	result, err := f.apply(o, p)
	if cerrs != nil {
		if err != nil {
			cerrs = append(cerrs, errorsOf(err)...)
		}
		err = cerrs
	}
	return result, err
}

// apply applies p, the patch with its sections whose conditions hold.
func (f PatchFile) apply(o *Object, p *kpatch.Patch) (string, error) {
	if f.Patch.Audit() {
		return f.audit(o, p)
	}
	if o.shared {
		changed, err := o.seq.Apply(p)
		switch {
		case err != nil:
			return Failed, f.panicked(err)
		case changed:
			return Patched, nil
		}
		return Unchanged, nil
	}
	out, result, err := f.evaluate(o, o.cur, p)
	if result == Patched {
		o.cur = out
	}
	return result, err
}

// audit evaluates p on a copy of what it changes: the object, and the
// copies the files before it share, stay as they are. The copy is what
// the Observer is told the file would have made of the object.
func (f PatchFile) audit(o *Object, p *kpatch.Patch) (string, error) {
	out, result, err := f.evaluate(o, o.Current(), p)
	if result != Patched {
		return result, err
	}
	o.wouldBe = out
	return WouldPatch, nil
}

// evaluate applies p to a copy of what it changes in cur: the copy and
// Patched, Unchanged when the copy equals cur, or Failed.
func (f PatchFile) evaluate(o *Object, cur map[string]any, p *kpatch.Patch) (map[string]any, string, error) {
	out, err := f.applyCopy(o, cur, p)
	switch {
	case err != nil:
		return nil, Failed, err
	case jsonvalue.Equal(cur, out):
		return nil, Unchanged, nil
	}
	return out, Patched, nil
}

// errorsOf returns the errors of an ErrorList one by one, or err alone.
func errorsOf(err error) []error {
	var list kpatch.ErrorList
	if errors.As(err, &list) {
		return list
	}
	return []error{err}
}

// applyCopy applies p to a copy of what it changes in cur, turning a
// panic into a *PanicError.
func (f PatchFile) applyCopy(o *Object, cur map[string]any, p *kpatch.Patch) (out map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = cur, &PanicError{File: f.Name(), Value: r, Stack: debug.Stack()}
		}
	}()
	out, err = kpatch.ApplyContext(o.ctx, cur, []*kpatch.Patch{p}, o.opts)
	return out, f.panicked(err)
}

// panicked turns the engine's panic of the file into a *PanicError that
// names the file; other errors are returned as they are.
func (f PatchFile) panicked(err error) error {
	if err == nil {
		return nil // before pe: its address escapes, one allocation per file
	}
	if pe := (*kpatch.PanicError)(nil); errors.As(err, &pe) {
		return &PanicError{File: f.Name(), Value: pe.Value, Stack: pe.Stack}
	}
	return err
}

// Required returns an error for each field the patch marks ${required}
// that obj does not hold.
func (f PatchFile) Required(obj map[string]any, ref *kpatch.ObjectRef, opts kpatch.ApplyOptions) []error {
	if !f.Patch.Required() {
		return nil
	}
	return f.Patch.MissingRequired(obj, ref, opts)
}
