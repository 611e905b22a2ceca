package kpatch

import (
	"slices"
	"strings"
)

// WorkloadSet is the kind set of every built-in kind with a pod
// template: [@workload.NAME] matches Pods and the controllers that make
// them, and its paths start at the pod spec.
const WorkloadSet = "@workload"

// AnyKind stands, in Kinds, for the kinds a target may match that the
// patch cannot list: the custom resources of a kind glob restricted to a
// custom resource's API group, such as [*(example.com).web]. A registry
// that indexes patches by kind asks MatchesKind for them.
const AnyKind = "*"

// kindForm is how a target names its kinds.
type kindForm uint8

const (
	kindOne  kindForm = iota // one kind: Deployment
	kindGlob                 // a glob over the built-in kinds: *Set, *config*
	kindSet                  // a named set: @workload
)

// kindForm tells how the target names its kinds.
func (t *Target) kindForm() kindForm {
	switch {
	case strings.HasPrefix(t.Kind, "@"):
		return kindSet
	case strings.ContainsAny(t.Kind, "*?"):
		return kindGlob
	}
	return kindOne
}

// isWorkloadSet reports whether the target is the @workload set.
func (t *Target) isWorkloadSet() bool { return strings.EqualFold(t.Kind, WorkloadSet) }

// reachesCustomKinds reports whether a kind glob also matches custom
// resources: it is restricted to an API group that is not built in.
func (t *Target) reachesCustomKinds() bool {
	if t.kindForm() != kindGlob || !t.HasGroup {
		return false
	}
	return !isBuiltinGroup(t.coreGroup())
}

// coreGroup is the target's group with "core" as "".
func (t *Target) coreGroup() string {
	if t.Group == "core" {
		return ""
	}
	return t.Group
}

// MatchesKind reports whether the target's kind admits a kind name,
// case-insensitively: equal, matched by the glob, or one of the set's.
// A glob over built-in kinds and a set admit only built-in kinds. (An
// object must also be of an API version the target admits: Matches.)
func (t *Target) MatchesKind(kind string) bool {
	switch t.kindForm() {
	case kindSet:
		return t.isWorkloadSet() && isWorkloadKind(kind)
	case kindGlob:
		if !globMatchFold(t.Kind, kind, true) {
			return false
		}
		return t.reachesCustomKinds() || len(schemasFor(kind)) > 0
	}
	return strings.EqualFold(t.Kind, kind)
}

// matchesObjectKind reports whether the target admits the object's
// kind. A glob over built-in kinds and a set admit only the API versions
// that kpatch knows the schema of: their entries are resolved per kind.
func (t *Target) matchesObjectKind(r *ObjectRef) bool {
	switch t.kindForm() {
	case kindOne:
		return strings.EqualFold(t.Kind, r.Kind)
	case kindGlob:
		if !globMatchFold(t.Kind, r.Kind, true) {
			return false
		}
		if t.reachesCustomKinds() {
			return true
		}
	case kindSet:
		if !t.isWorkloadSet() {
			return false
		}
	}
	ks := schemaOf(r.APIVersion, r.Kind)
	return ks != nil && (t.kindForm() == kindGlob || ks.workload)
}

// Targets reports whether a header or merge entry of the patch addresses
// the object ref: the file applies to it.
func (p *Patch) Targets(ref *ObjectRef) bool {
	for _, m := range p.file.Merges {
		if m.Target.Matches(ref) {
			return true
		}
	}
	for _, s := range p.file.Sections {
		if s.Target.Matches(ref) {
			return true
		}
	}
	return false
}

// MatchesKind reports whether one of the patch's headers may target
// objects of kind (case-insensitively): a registry that indexes patches by
// Kinds asks it for the kinds that AnyKind stands for.
func (p *Patch) MatchesKind(kind string) bool {
	for _, s := range p.sections {
		if s.target.MatchesKind(kind) {
			return true
		}
	}
	return false
}

// targetKinds are the lower-case kinds a target may match, with AnyKind
// for a glob that reaches custom resources.
func (t *Target) targetKinds() []string {
	if t.kindForm() == kindOne {
		return []string{strings.ToLower(t.Kind)}
	}
	kindNames.once.Do(loadKindNames)
	var out []string
	for _, kind := range kindNames.kinds {
		if t.MatchesKind(kind) && t.groupAdmitsKind(kind) {
			out = append(out, kind)
		}
	}
	if t.reachesCustomKinds() {
		out = append(out, AnyKind)
	}
	return out
}

// groupAdmitsKind reports whether a built-in kind has a version the
// target's group restriction admits.
func (t *Target) groupAdmitsKind(kind string) bool {
	return slices.ContainsFunc(schemasFor(kind), func(ks *kindSchema) bool {
		return t.groupMatches(ks.gvk.Group, ks.gvk.Version)
	})
}

// isWorkloadKind reports whether a kind (any case) is in @workload.
func isWorkloadKind(kind string) bool {
	list := schemasFor(kind)
	return len(list) > 0 && list[0].workload
}

// WorkloadKinds returns the kinds of @workload, sorted: the built-in
// kinds whose objects make pods from a pod template, and Pod.
func WorkloadKinds() []string {
	kindNames.once.Do(loadKindNames)
	var out []string
	for _, kind := range kindNames.kinds {
		if list := schemasFor(kind); list[0].workload {
			out = append(out, list[0].gvk.Kind)
		}
	}
	return out
}
