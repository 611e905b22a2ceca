package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// ErrTenantKind is a kind a tenant's file may not patch: one the
// tenants' allowlist (TenantKinds) does not hold, or one no tenant ever
// patches (NeverTenantKinds). Checked with errors.Is.
var ErrTenantKind = errors.New("a tenant's file patches the kinds of the tenants' allowlist only")

// NeverTenantKinds are the kinds a tenant's file never patches, whatever
// the allowlist says: its own Namespace, the guardrails the cluster admin
// sets in a namespace (RBAC, ResourceQuota, LimitRange, NetworkPolicy),
// and what changes the API server's own behaviour (webhook
// configurations, admission policies, CustomResourceDefinitions). They
// are compared by kind in every API group: a CRD called NetworkPolicy
// (Calico's) is a guardrail too.
var NeverTenantKinds = []string{
	"Namespace",
	"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding",
	"ResourceQuota", "LimitRange", "NetworkPolicy",
	"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
	"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
	"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding",
	"CustomResourceDefinition",
}

// DefaultTenantKinds is the allowlist of --tenant-kinds by default: the
// workloads, and what a team deploys with them.
var DefaultTenantKinds = []string{
	kpatch.WorkloadSet, "Service", "ConfigMap", "Ingress", "ServiceAccount", "HorizontalPodAutoscaler", "PodDisruptionBudget",
}

// TenantKinds is the allowlist of the kinds a tenant's files may patch,
// each in some API groups: a kind named with its group (Ingress.networking.k8s.io)
// in that group only; a built-in kind named alone (Service) in the
// built-in groups that have it; any other kind named alone (a custom
// resource's) in every group. @workload stands for its kinds. It never
// holds a kind of NeverTenantKinds. Immutable.
type TenantKinds struct {
	entries []tenantKind
	// byKind indexes entries by kind, as spelled and in lower case
	byKind map[string][]tenantKind
}

// tenantKind is one kind of the allowlist in one group, or in every group.
type tenantKind struct {
	kind     string // as the scheme (or the flag) spells it
	group    string // "" is core
	anyGroup bool
}

// ParseTenantKinds parses the allowlist of --tenant-kinds: kinds, each
// optionally followed by its group (Kind.group, with core for the core
// group), and @workload.
func ParseTenantKinds(list []string) (*TenantKinds, error) {
	k := &TenantKinds{}
	var errs []error
	for _, item := range list {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.EqualFold(item, kpatch.WorkloadSet) {
			for _, w := range kpatch.WorkloadKinds() {
				k.add(w, "", false)
			}
			continue
		}
		kind, group, hasGroup := strings.Cut(item, ".")
		switch {
		case !isKindName(kind) || hasGroup && !isGroupName(group):
			errs = append(errs, fmt.Errorf("%q is not a kind, Kind.group or %s", item, kpatch.WorkloadSet))
		case neverTenantKind(kind):
			errs = append(errs, fmt.Errorf("%q: %w: %s is never one, whatever the allowlist says", item, ErrTenantKind, kind))
		default:
			if group == "core" {
				group = ""
			}
			k.add(kind, group, hasGroup)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("the tenants' kinds: %w", err)
	}
	return k, nil
}

// DefaultTenantKindList is DefaultTenantKinds parsed.
var DefaultTenantKindList = sync.OnceValue(func() *TenantKinds {
	k, err := ParseTenantKinds(DefaultTenantKinds)
	if err != nil {
		panic(err) // the defaults are fixed
	}
	return k
})

// add adds kind in group (hasGroup), or in its built-in groups, else in
// every group.
func (k *TenantKinds) add(kind, group string, hasGroup bool) {
	var entries []tenantKind
	switch groups := builtinGroups()[strings.ToLower(kind)]; {
	case hasGroup:
		entries = []tenantKind{{kind: kind, group: group}}
	case len(groups) > 0:
		for _, g := range groups {
			entries = append(entries, tenantKind{kind: g.kind, group: g.group})
		}
	default:
		entries = []tenantKind{{kind: kind, anyGroup: true}}
	}
	if k.byKind == nil {
		k.byKind = map[string][]tenantKind{}
	}
	for _, e := range entries {
		if !slices.ContainsFunc(k.entries, func(o tenantKind) bool { return o.same(e) }) {
			k.entries = append(k.entries, e)
			for _, key := range []string{e.kind, strings.ToLower(e.kind)} {
				if !slices.ContainsFunc(k.byKind[key], e.same) {
					k.byKind[key] = append(k.byKind[key], e)
				}
			}
		}
	}
}

// of returns the entries of kind, compared case-insensitively.
func (k *TenantKinds) of(kind string) []tenantKind {
	if list, ok := k.byKind[kind]; ok {
		return list
	}
	return k.byKind[strings.ToLower(kind)]
}

func (e tenantKind) same(o tenantKind) bool {
	return strings.EqualFold(e.kind, o.kind) && e.group == o.group && e.anyGroup == o.anyGroup
}

// String lists the allowlist as --tenant-kinds takes it.
func (k *TenantKinds) String() string {
	out := make([]string, 0, len(k.entries))
	for _, e := range k.entries {
		switch {
		case e.anyGroup:
			out = append(out, e.kind)
		case e.group == "":
			out = append(out, e.kind+".core")
		default:
			out = append(out, e.kind+"."+e.group)
		}
	}
	return strings.Join(out, ",")
}

// Allows reports whether a tenant's file may patch objects of kind in
// group ("" is core).
func (k *TenantKinds) Allows(kind, group string) bool {
	if neverTenantKind(kind) {
		return false
	}
	return slices.ContainsFunc(k.of(kind), func(e tenantKind) bool { return e.anyGroup || e.group == group })
}

// AllowsKind reports whether a tenant's file may patch objects of kind in
// some group.
func (k *TenantKinds) AllowsKind(kind string) bool {
	if neverTenantKind(kind) {
		return false
	}
	return len(k.of(kind)) > 0
}

// Narrow returns the targets of the allowlist's kinds that t admits: one
// per kind and group, each with t's namespace and name, and its version
// when t names one. A kind glob or @workload keeps the allowlist's kinds
// it matches; a kind its one kind, in the groups both admit. None when t
// admits no kind of the allowlist.
func (k *TenantKinds) Narrow(t *kpatch.Target) []kpatch.Target {
	var out []kpatch.Target
	targetGroup := t.Group
	if targetGroup == "core" {
		targetGroup = ""
	}
	for _, e := range k.entries {
		if neverTenantKind(e.kind) || !t.MatchesKind(e.kind) {
			continue
		}
		n := kpatch.Target{Namespace: t.Namespace, Kind: e.kind, Name: t.Name, NameLiteral: t.NameLiteral}
		switch {
		case t.HasGroup && !e.anyGroup && targetGroup != e.group:
			continue
		case t.HasGroup:
			n.Group, n.Version, n.HasGroup = t.Group, t.Version, true
		case !e.anyGroup:
			n.Group, n.HasGroup = e.group, true
		}
		if n.HasGroup && n.Group == "" {
			n.Group = "core"
		}
		out = append(out, n)
	}
	return out
}

// neverTenantKind reports whether kind is one of NeverTenantKinds,
// compared case-insensitively.
func neverTenantKind(kind string) bool {
	for _, n := range NeverTenantKinds {
		if len(n) == len(kind) && strings.EqualFold(n, kind) {
			return true
		}
	}
	return false
}

// builtinKind is a built-in kind in one of its groups.
type builtinKind struct{ kind, group string }

// builtinGroups maps each built-in kind (lower case) to the groups that
// serve it in client-go's scheme.
var builtinGroups = sync.OnceValue(func() map[string][]builtinKind {
	out := map[string][]builtinKind{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		key := strings.ToLower(gvk.Kind)
		b := builtinKind{gvk.Kind, gvk.Group}
		if !slices.Contains(out[key], b) {
			out[key] = append(out[key], b)
		}
	}
	for _, list := range out {
		slices.SortFunc(list, func(a, b builtinKind) int { return strings.Compare(a.group, b.group) })
	}
	return out
})

// isKindName accepts a kind: a letter, then letters and digits.
func isKindName(s string) bool {
	if s == "" || !isASCIILetter(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// isGroupName accepts an API group: lower-case letters, digits, dots and
// dashes.
func isGroupName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
