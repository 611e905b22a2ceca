package registry

import (
	"errors"
	"fmt"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// errNotApplied marks, for kpatch.Relate, a registry file that no version
// of applies: the files that require it fail.
var errNotApplied = errors.New("no version of the file applies")

// fileMeta is what the metadata of one registry file asks of each object,
// when it depends on the object: its own enabled: (dynamic), the
// requirements and earlier conflicting files whose enabled: does.
// Immutable.
type fileMeta struct {
	rel       *kpatch.Relations
	self      int // the file's member in rel
	dynamic   bool
	requires  []metaLink
	conflicts []metaLink
}

// metaLink is another file of a fileMeta's relations.
type metaLink struct {
	member int
	file   apply.File
}

// relateFiles applies the metadata of the registry's files, which are in
// the order of their keys (inApplyOrder): it marks the disabled files,
// refuses (Patch nil, with the error in Err, or LastGoodErr when the
// current content is refused already) those whose metadata fail on every
// object, and returns the relations (Order: the order the files apply
// in, indexes into files) and the per-object checks of the files whose enablement, or whose
// relations' enablement, depends on the object.
func relateFiles(files []RegistryFile) (*kpatch.Relations, map[apply.File]*fileMeta) {
	members := make([]kpatch.Member, len(files))
	states := make([]kpatch.State, len(files))
	for i := range files {
		f := &files[i]
		// a tenant's names name its own namespace's files (tenant.go)
		members[i] = kpatch.Member{Scope: f.Ref.Namespace, Group: f.Ref.ConfigMap, Name: kpatch.TrimPatchExtension(f.Ref.Key), File: f.Ref.String()}
		states[i] = kpatch.Enabled
		if f.File != nil {
			members[i].Meta = f.File.Meta().Metadata // nil for a kind without: always enabled
			states[i] = enablement(f)
		}
	}
	rel := kpatch.Relate(members)
	for i := range files {
		if files[i].File == nil && rel.Errs[i] == nil {
			rel.Errs[i] = errNotApplied
		}
	}
	errs := rel.Check(states)
	for i := range files {
		if f := &files[i]; f.File != nil && errs[i] != nil {
			f.refuse(errs[i])
		} else if states[i] == kpatch.Disabled {
			f.Disabled = true
		}
	}
	return rel, objectChecks(rel, files, states)
}

// enablement is whether a file is enabled with its ConfigMap's values, or
// Unknown when its enabled: reads a value that the object's Namespace
// (or the object) may set, or a built-in.
func enablement(f *RegistryFile) kpatch.State {
	md := f.File.Meta().Metadata
	if md == nil || md.Enabled == nil {
		return kpatch.Enabled
	}
	if f.valuesUnknown && md.Enabled.Value.IsTemplate() || f.params != nil && f.params.decides(md.Enabled) {
		return kpatch.Unknown
	}
	on, _, err := f.File.Enabled()
	switch {
	case err != nil:
		f.refuse(err)
		return kpatch.Disabled
	case !on:
		return kpatch.Disabled
	}
	return kpatch.Enabled
}

// decides reports whether the object may change the value of e: it
// reads a built-in, or a parameter that annotations may set.
func (fv *fileValues) decides(e *kpatch.MetaValue) bool {
	for _, part := range e.Value.Parts {
		if v := part.Var; v != nil && (v.IsBuiltin() && !fv.pv.given || fv.inputs[v.Path[0]] && fv.pv.schema != nil) {
			return true
		}
	}
	return false
}

// refuse takes the file out of the registry for err.
func (f *RegistryFile) refuse(err error) {
	if f.Err == nil {
		f.Err = err
	} else {
		f.LastGood, f.LastGoodErr = false, err
	}
	f.File, f.Patch, f.params = nil, nil, nil
}

// objectChecks returns the per-object checks of the files that apply:
// a file whose own state is Unknown, or with a requirement of Unknown
// state, or with an earlier conflicting file that is not disabled when
// one of the two is Unknown.
func objectChecks(rel *kpatch.Relations, files []RegistryFile, states []kpatch.State) map[apply.File]*fileMeta {
	var out map[apply.File]*fileMeta
	for i := range files {
		f := &files[i]
		if f.File == nil || f.Disabled || f.File.Meta().Metadata == nil { // a kind without metadata
			continue
		}
		fm := &fileMeta{rel: rel, self: i, dynamic: states[i] == kpatch.Unknown}
		for _, j := range rel.Requires[i] {
			if states[j] == kpatch.Unknown {
				fm.requires = append(fm.requires, metaLink{j, files[j].File})
			}
		}
		for _, j := range rel.Conflicts[i] {
			if rel.Pos(j) < rel.Pos(i) && files[j].File != nil && !files[j].Disabled && (fm.dynamic || states[j] == kpatch.Unknown) {
				fm.conflicts = append(fm.conflicts, metaLink{j, files[j].File})
			}
		}
		if fm.dynamic || len(fm.requires) > 0 || len(fm.conflicts) > 0 {
			if out == nil {
				out = map[apply.File]*fileMeta{}
			}
			out[f.File] = fm
		}
	}
	return out
}

// check returns the file bound for the object (bound) when its metadata
// let it apply there; nil when it is disabled for the object; an error
// when a requirement is not enabled for the object, or an earlier
// conflicting file is.
func (fm *fileMeta) check(r *Registry, bound apply.File, oc *ObjectContext) (apply.File, error) {
	if fm.dynamic {
		on, _, err := bound.Enabled()
		if err != nil {
			return nil, objectError(err, oc)
		}
		if !on {
			return nil, nil
		}
	}
	for _, l := range fm.requires {
		if on, err := r.enabledFor(l.file, oc); err != nil {
			return nil, objectError(fm.rel.RequirementError(fm.self, l.member, fmt.Sprintf("not applied to the object: %v", err)), oc)
		} else if !on {
			return nil, objectError(fm.rel.RequirementError(fm.self, l.member, "disabled for the object"), oc)
		}
	}
	for _, l := range fm.conflicts {
		if on, err := r.enabledFor(l.file, oc); err == nil && on {
			return nil, objectError(fm.rel.ConflictError(fm.self, l.member), oc)
		}
	}
	return bound, nil
}

// enabledFor reports whether a file of the registry is enabled for the
// object.
func (r *Registry) enabledFor(f apply.File, oc *ObjectContext) (bool, error) {
	if fv := r.values[f]; fv != nil {
		bound, err := fv.forObject(r.bound, oc)
		if err != nil {
			return false, err
		}
		f = bound
	}
	on, _, err := f.Enabled()
	return on, err
}

// objectError places a metadata problem on the object, as the problems of
// entries are: file:line: not applied: message.
func objectError(err error, oc *ObjectContext) error {
	var pe *kpatch.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	return &kpatch.ApplyError{Pos: pe.Pos, Object: oc.object, Err: pe.Err, Msg: pe.Msg}
}
