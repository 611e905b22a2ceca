package rules

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// ServedResource is one resource the API server serves (discovery): a
// group, version and plural name, its kind, scope and verbs.
type ServedResource struct {
	schema.GroupVersionResource
	Kind       string
	Namespaced bool
	Verbs      []string
}

// Unserved is a target of a registry file that no served resource
// matches: a kind that does not exist (yet), or one whose resources are
// cluster-scoped or take none of the file's operations that the webhook
// patches.
type Unserved struct {
	Ref    registry.FileRef
	Target string
}

// ResolvedRules are the resources a registry's files target, resolved
// against the served resources.
type ResolvedRules struct {
	// Resources are the resources to send to the webhook, sorted by
	// group, version and name.
	Resources []schema.GroupVersionResource
	// Operations are the operations of each resource: the union of the
	// operations of the files that target it (# kpatch:operations:),
	// among the webhook's, that the resource takes.
	Operations map[schema.GroupVersionResource]kpatch.Operations
	// Unserved lists the targets that match none, in registry order.
	Unserved []Unserved
}

// ResolveRules resolves the targets of the files that apply in reg
// against served (a tenant's within the tenants' allowlist only, so that
// the rules never hold more than the admin's targets and the allowlist): a target takes every served version of every resource
// whose kind and group it admits (kpatch.Target.Matches with any name and
// namespace), among the namespaced resources that take one of ops (verb
// create for CREATE, update for UPDATE) that the file applies on, with
// those operations. Subresources never count; a file none of whose
// operations is among ops takes nothing. So a
// kind glob over the built-in kinds, `*` included, takes the built-in
// resources the engine knows the schema of (never a custom resource, as
// when it matches objects), a glob restricted to a custom resource's group
// every resource of that group, @workload the workload kinds.
func ResolveRules(reg *registry.Registry, served []ServedResource, ops []admissionregistrationv1.OperationType) *ResolvedRules {
	usable := usableResources(served, ops)
	byKind := map[string][]ServedResource{}
	for _, r := range usable {
		k := strings.ToLower(r.Kind)
		byKind[k] = append(byKind[k], r)
	}
	webhook := operationsOf(ops)
	out := &ResolvedRules{Operations: map[schema.GroupVersionResource]kpatch.Operations{}}
	for _, f := range reg.InOrder() {
		allow := tenantKinds(reg, f.Ref)
		fileOps := f.File.Meta().Operations & webhook
		if fileOps == 0 {
			continue // the webhook never applies it
		}
		for _, t := range fileTargets(f.File) {
			candidates := usable
			if !strings.ContainsAny(t.Kind, "*?@") {
				candidates = byKind[strings.ToLower(t.Kind)]
			}
			found := false
			for _, r := range candidates {
				if rops := fileOps & taken(r); rops != 0 && targetsResource(t, r) && (allow == nil || allow.Allows(r.Kind, r.Group)) {
					out.Operations[r.GroupVersionResource] |= rops
					found = true
				}
			}
			if !found {
				out.Unserved = append(out.Unserved, Unserved{Ref: f.Ref, Target: t.String()})
			}
		}
	}
	out.Resources = slices.SortedFunc(maps.Keys(out.Operations), compareGVR)
	return out
}

// operationsOf is the set of the webhook's operations.
func operationsOf(ops []admissionregistrationv1.OperationType) kpatch.Operations {
	var set kpatch.Operations
	for _, op := range ops {
		set |= kpatch.ParseOperation(string(op))
	}
	return set
}

// taken are the operations whose verbs r takes (create for CREATE,
// update for UPDATE).
func taken(r ServedResource) kpatch.Operations {
	var set kpatch.Operations
	for _, v := range r.Verbs {
		set |= kpatch.ParseOperation(v)
	}
	return set
}

// operationTypes lists a set of operations as rules name them, CREATE
// first.
func operationTypes(set kpatch.Operations) []admissionregistrationv1.OperationType {
	names := set.Names()
	out := make([]admissionregistrationv1.OperationType, len(names))
	for i, n := range names {
		out[i] = admissionregistrationv1.OperationType(n)
	}
	return out
}

// tenantKinds is the allowlist a tenant's file (ref) is held to, nil for
// an admin's: whatever a tenant's targets say, the rules they bring hold
// the allowlist's kinds only (the registry narrows them already).
func tenantKinds(reg *registry.Registry, ref registry.FileRef) *registry.TenantKinds {
	switch {
	case ref.Namespace == "":
		return nil
	case reg.TenantKinds() != nil:
		return reg.TenantKinds()
	}
	return registry.DefaultTenantKindList()
}

// usableResources are the served resources that can be rules: namespaced
// resources, not subresources, that take one of ops.
func usableResources(served []ServedResource, ops []admissionregistrationv1.OperationType) []ServedResource {
	var out []ServedResource
	for _, r := range served {
		if !r.Namespaced || strings.Contains(r.Resource, "/") {
			continue
		}
		for _, op := range ops {
			if slices.Contains(r.Verbs, strings.ToLower(string(op))) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// fileTargets are the targets of a file, each once: its kpatch targets,
// or, for a kind without them (a replacements file), the kinds it names,
// in any group. A kind it does not name (a select without a kind, or a
// kind pattern) takes no resource: such a file acts on the kinds the
// other files bring.
func fileTargets(f apply.File) []*kpatch.Target {
	targets := f.Targets()
	if targets == nil {
		kinds, _ := f.Kinds()
		for _, k := range kinds {
			targets = append(targets, &kpatch.Target{Kind: k, Name: "*"})
		}
	}
	var out []*kpatch.Target
	seen := map[string]bool{}
	for _, t := range targets {
		if s := t.String(); !seen[s] {
			seen[s] = true
			out = append(out, t)
		}
	}
	return out
}

// targetsResource reports whether t may match an object of r, whatever
// its name and namespace.
func targetsResource(t *kpatch.Target, r ServedResource) bool {
	probe := *t
	probe.Namespace, probe.Name, probe.NameLiteral = "", "*", false
	return probe.Matches(&kpatch.ObjectRef{APIVersion: r.GroupVersion().String(), Kind: r.Kind, Name: "any"})
}

func compareGVR(a, b schema.GroupVersionResource) int {
	return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Version, b.Version), strings.Compare(a.Resource, b.Resource))
}

// Rules are the webhook rules of the resources, with their operations
// and scope Namespaced: one rule per group, set of operations and set of
// resources, with the versions that serve exactly that set, in order.
func (r *ResolvedRules) Rules() []admissionregistrationv1.RuleWithOperations {
	type gvOps struct {
		gv  schema.GroupVersion
		ops kpatch.Operations
	}
	type key struct {
		group, resources string
		ops              kpatch.Operations
	}
	var order []key
	versions := map[key][]string{}
	byGV := map[gvOps][]string{}
	var gvs []gvOps
	for _, res := range r.Resources {
		g := gvOps{res.GroupVersion(), r.Operations[res]}
		if _, ok := byGV[g]; !ok {
			gvs = append(gvs, g)
		}
		byGV[g] = append(byGV[g], res.Resource)
	}
	for _, g := range gvs {
		k := key{g.gv.Group, strings.Join(byGV[g], ","), g.ops}
		if _, ok := versions[k]; !ok {
			order = append(order, k)
		}
		versions[k] = append(versions[k], g.gv.Version)
	}
	scope := admissionregistrationv1.NamespacedScope
	out := make([]admissionregistrationv1.RuleWithOperations, 0, len(order))
	for _, k := range order {
		out = append(out, admissionregistrationv1.RuleWithOperations{
			Operations: operationTypes(k.ops),
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{k.group}, APIVersions: versions[k],
				Resources: strings.Split(k.resources, ","), Scope: &scope,
			},
		})
	}
	return out
}

// String lists the unserved target for an Event.
func (u Unserved) String() string {
	return fmt.Sprintf("%s: no served namespaced resource has the kind of [%s]", u.Ref.Key, u.Target)
}
