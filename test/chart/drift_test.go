package chart

import (
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestDriftIsOptIn: by default the webhook does not scan
// (--drift-interval=0) and nothing is granted for it; drift.enabled
// passes the scan's flags and grants list on drift.resources and Events;
// drift.reports=policyreport adds the PolicyReports, drift.reconcile
// patch on drift.resources, and nothing else adds either.
func TestDriftIsOptIn(t *testing.T) {
	const role = "kpatch-system-kpatch-webhook-drift"
	objs := render(t, nil)
	if args := containerArgs(t, objs); !slices.Contains(args, "--drift-interval=0") || slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "--reconcile") || strings.HasPrefix(a, "--drift-reports")
	}) {
		t.Errorf("defaults: args %v, want --drift-interval=0 and no other drift flag", args)
	}
	if r := all[rbacv1.ClusterRole](t, objs, "ClusterRole")[role]; r != nil {
		t.Errorf("defaults: the drift ClusterRole is rendered: %+v", r.Rules)
	}
	type grant struct{ groups, resources, verbs string }
	grants := func(values map[string]any) ([]grant, []string) {
		objs := render(t, values)
		r := all[rbacv1.ClusterRole](t, objs, "ClusterRole")[role]
		if r == nil {
			t.Fatalf("%v: no drift ClusterRole", values)
		}
		var out []grant
		for _, rule := range r.Rules {
			out = append(out, grant{strings.Join(rule.APIGroups, ","), strings.Join(rule.Resources, ","), strings.Join(rule.Verbs, ",")})
		}
		return out, containerArgs(t, objs)
	}
	drift := func(extra map[string]any) map[string]any {
		d := map[string]any{"enabled": true, "resources": []any{map[string]any{"apiGroups": []any{"apps"}, "resources": []any{"deployments"}}}}
		for k, v := range extra {
			d[k] = v
		}
		return map[string]any{"drift": d}
	}
	list := grant{"apps", "deployments", "list"}
	events := grant{"events.k8s.io", "events", "create,patch"}
	for _, c := range []struct {
		name   string
		values map[string]any
		grants []grant
		args   []string
	}{
		{"enabled", drift(nil), []grant{list, events},
			[]string{"--drift-interval=10m", "--drift-max-objects=50000", "--drift-reports=", "--reconcile=false"}},
		{"reports", drift(map[string]any{"reports": "policyreport"}),
			[]grant{list, events, {"wgpolicyk8s.io", "policyreports", "get,list,create,update,patch,delete"}},
			[]string{"--drift-reports=policyreport", "--reconcile=false"}},
		{"reconcile", drift(map[string]any{"interval": "1m", "reconcile": map[string]any{"enabled": true, "rate": 2.5}}),
			[]grant{list, {"apps", "deployments", "patch"}, events},
			[]string{"--drift-interval=1m", "--reconcile=true", "--reconcile-rate=2.5"}},
	} {
		got, args := grants(c.values)
		if !slices.Equal(got, c.grants) {
			t.Errorf("%s: grants %v, want %v", c.name, got, c.grants)
		}
		for _, a := range c.args {
			if !slices.Contains(args, a) {
				t.Errorf("%s: no %s in %v", c.name, a, args)
			}
		}
	}
}

// TestExcludedNamespacesLeaveTheScan: the namespaces the webhook
// configuration excludes are left out of the webhook's namespace
// selector too, so that the drift scan neither reports nor reconciles
// objects the webhook is never called on.
func TestExcludedNamespacesLeaveTheScan(t *testing.T) {
	args := containerArgs(t, render(t, map[string]any{"webhook": map[string]any{"excludeNamespaces": []any{"legacy", "sandbox"}}}))
	want := "--namespace-selector=kpatch.dev/inject=enabled,kubernetes.io/metadata.name notin (legacy,sandbox)"
	if !slices.Contains(args, want) {
		t.Errorf("no %s in %v", want, args)
	}
	sel, err := labels.Parse(strings.TrimPrefix(want, "--namespace-selector="))
	if err != nil {
		t.Fatal(err)
	}
	for ns, in := range map[string]bool{"shop": true, "legacy": false, "sandbox": false} {
		if got := sel.Matches(labels.Set{"kpatch.dev/inject": "enabled", "kubernetes.io/metadata.name": ns}); got != in {
			t.Errorf("%s: selected %v, want %v", ns, got, in)
		}
	}
}
