package kpatch

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// targetProblem reports what makes a target match no object, whatever
// the objects: a plural, short name or near miss of a built-in kind, a
// built-in API group without the kind or the version, a name or namespace
// that no object can have. An unknown kind that resembles no built-in kind
// is a custom resource's, and fine.
func targetProblem(t *Target) *problem {
	switch t.kindForm() {
	case kindSet:
		return kindSetProblem(t)
	case kindGlob:
		return kindGlobProblem(t)
	}
	if !isWord(t.Kind, "") {
		return errorf(ErrUnmatchable, "%q is not a kind: a kind is letters and digits, such as Deployment", t.Kind)
	}
	if err := groupProblem(t); err != nil {
		return err
	}
	if err := nameProblem(t); err != nil {
		return err
	}
	if t.HasGroup || len(schemasFor(t.Kind)) > 0 {
		return nil
	}
	kind, why, ok := suggestKind(t.Kind)
	if !ok {
		return nil
	}
	switch why {
	case "plural":
		return errorf(ErrUnknownKind, "unknown kind %q: a target names the kind in the singular; did you mean %s?", t.Kind, kind)
	case "short name":
		return errorf(ErrUnknownKind, "unknown kind %q: %s is a short name, which targets do not take; did you mean %s?", t.Kind, strings.ToLower(t.Kind), kind)
	}
	return errorf(ErrUnknownKind, "unknown kind %q; did you mean %s? (a custom resource kind this close to a built-in one is written with its group: %s(example.com).NAME)", t.Kind, kind, t.Kind)
}

// kindSetProblem checks a target of a kind set: @workload is the only
// one, and it takes no API group (its kinds are in core, apps and batch).
func kindSetProblem(t *Target) *problem {
	if !t.isWorkloadSet() {
		return errorf(ErrUnknownKind, "unknown kind set %q: the kind set is @workload (%s); a kind is written without @", t.Kind, strings.Join(WorkloadKinds(), ", "))
	}
	if t.HasGroup {
		return errorf(ErrUnmatchable, "@workload takes no API group: it is the kinds %s of the groups core, apps and batch", strings.Join(WorkloadKinds(), ", "))
	}
	return nameProblem(t)
}

// kindGlobProblem checks a kind glob: it must match a built-in kind (in
// the target's group, when it names a built-in one), unless it is
// restricted to a custom resource's group.
func kindGlobProblem(t *Target) *problem {
	if !isKindPattern(t.Kind) || strings.HasPrefix(t.Kind, "@") {
		return errorf(ErrUnmatchable, "%q is not a kind glob: a kind glob is letters, digits, * and ?, such as *Set", t.Kind)
	}
	if err := nameProblem(t); err != nil {
		return err
	}
	if t.HasGroup && !isBuiltinGroup(t.coreGroup()) {
		if !strings.Contains(t.Group, ".") {
			return errorf(ErrUnmatchable, "no API group %q: built-in groups are core, apps, batch, ...; a custom resource's group holds a dot (example.com); write (core/v1) for the core group", t.Group)
		}
		return nil
	}
	if kinds, _ := targetSchemas(t); len(kinds) == 0 {
		in := ""
		if t.HasGroup {
			in = " of the API group " + t.Group
			if t.Version != "" {
				in += " in " + t.Version
			}
		}
		return errorf(ErrUnmatchable, "no built-in kind%s matches the kind glob %q", in, t.Kind)
	}
	return nil
}

// groupProblem checks a group restriction that names a built-in API
// group: the group must have the kind, in the version if one is given.
// Other groups are custom resources' and fine, if they can be one: a
// custom resource's group holds a dot.
func groupProblem(t *Target) *problem {
	if !t.HasGroup {
		return nil
	}
	group := t.Group
	if group == "core" {
		group = ""
	}
	if !isBuiltinGroup(group) {
		if !strings.Contains(group, ".") {
			return errorf(ErrUnmatchable, "no API group %q: built-in groups are core, apps, batch, ...; a custom resource's group holds a dot (example.com); write (core/v1) for the core group", t.Group)
		}
		return nil
	}
	var versions []string
	kind := t.Kind
	for _, ks := range schemasFor(t.Kind) {
		if ks.gvk.Group == group {
			versions, kind = append(versions, ks.gvk.Version), ks.gvk.Kind
		}
	}
	if len(versions) == 0 {
		return errorf(ErrUnknownKind, "the API group %s has no kind %q%s", t.Group, t.Kind, kindGroupsHint(t.Kind))
	}
	if t.Version != "" && !slices.Contains(versions, t.Version) {
		return errorf(ErrUnmatchable, "%s(%s) has no version %q; its versions are %s", kind, t.Group, t.Version, strings.Join(versions, ", "))
	}
	return nil
}

// kindGroupsHint names the groups that have a kind, or the built-in kind
// an unknown one resembles.
func kindGroupsHint(kind string) string {
	list := schemasFor(kind)
	if len(list) == 0 {
		if k, _, ok := suggestKind(kind); ok {
			return "; did you mean " + k + "?"
		}
		return ""
	}
	var groups []string
	for _, ks := range list {
		g := ks.gvk.Group
		if g == "" {
			g = "core"
		}
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	return " (" + list[0].gvk.Kind + " is in " + strings.Join(groups, ", ") + ")"
}

// nameProblem rejects names and namespaces no object can have: a name
// holding '/' or '%' or that is "." or ".." (the loosest rule of
// Kubernetes names), a namespace that is not a DNS label.
func nameProblem(t *Target) *problem {
	if strings.ContainsAny(t.Name, "/%") || t.NameLiteral && (t.Name == "." || t.Name == "..") {
		return errorf(ErrUnmatchable, "no object is named %q: names cannot be . or .. or hold / or %%", t.Name)
	}
	ns := t.Namespace
	if ns == "" {
		return nil
	}
	if isGlob(ns) {
		if !isWord(ns, "-*?") || strings.ToLower(ns) != ns {
			return errorf(ErrUnmatchable, "no namespace matches %q: namespace names are lower-case letters, digits and '-'", ns)
		}
		return nil
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return errorf(ErrUnmatchable, "no namespace is named %q: %s", ns, errs[0])
	}
	return nil
}
