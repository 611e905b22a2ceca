package status

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/drift"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// targetedKinds are the kinds of reg's files that apply on UPDATE, among
// the namespaced resources the API server serves that take list and
// update, each at its preferred version (one list of each kind's
// objects): a kind glob takes what it matches (kpatch.Target.Matches), a
// replacements file the kinds it names. With a group whose discovery
// failed, it returns the kinds of the others and the error.
func targetedKinds(d discovery.DiscoveryInterface, reg *registry.Registry) ([]drift.Kind, error) {
	lists, err := discovery.ServerPreferredNamespacedResources(d)
	var targets []*kpatch.Target
	for _, f := range reg.InOrder() {
		if f.File.Meta().Operations.Has("UPDATE") {
			targets = append(targets, fileTargets(f.File)...)
		}
	}
	var kinds []drift.Kind
	for _, l := range lists {
		gv, perr := schema.ParseGroupVersion(l.GroupVersion)
		if perr != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "update") {
				continue
			}
			obj := &kpatch.ObjectRef{APIVersion: gv.String(), Kind: r.Kind, Name: "any"}
			if slices.ContainsFunc(targets, func(t *kpatch.Target) bool { return anyObject(t).Matches(obj) }) {
				kinds = append(kinds, drift.Kind{Group: gv.Group, Version: gv.Version, Resource: r.Name, Kind: r.Kind})
			}
		}
	}
	return kinds, err
}

// fileTargets are a file's targets, or, for a file without (a
// replacements file), the kinds it names, any name.
func fileTargets(f apply.File) []*kpatch.Target {
	if targets := f.Targets(); targets != nil {
		return targets
	}
	kinds, _ := f.Kinds()
	out := make([]*kpatch.Target, len(kinds))
	for i, k := range kinds {
		out[i] = &kpatch.Target{Kind: k, Name: "*"}
	}
	return out
}

// anyObject is t for any name in any namespace.
func anyObject(t *kpatch.Target) *kpatch.Target {
	probe := *t
	probe.Namespace, probe.Name, probe.NameLiteral = "", "*", false
	return &probe
}
