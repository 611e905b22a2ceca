package rules

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// guarded is what a cluster serves beside the workloads: the kinds no
// tenant patches, and a Secret.
var guarded = append(slices.Clone(cluster),
	served("", "v1", "resourcequotas", "ResourceQuota", true),
	served("", "v1", "limitranges", "LimitRange", true),
	served("", "v1", "secrets", "Secret", true),
	served("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", true),
	served("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true),
	served("rbac.authorization.k8s.io", "v1", "roles", "Role", true),
	served("serving.knative.dev", "v1", "services", "Service", true),
)

// TestTenantFilesNeverWidenTheRules: a tenant's [*.*] file, and its
// replacements file without a kind, bring the allowlist's resources at
// most: never Secrets, RBAC, quotas, limits or network policies, nor a
// custom Service; the admin's [*.*] brings every built-in resource.
func TestTenantFilesNeverWidenTheRules(t *testing.T) {
	tenant := corev1.ConfigMap{}
	tenant.Name, tenant.Namespace = "mine", "team-a"
	tenant.Data = map[string]string{
		"all.kpatch": "[*.*]\nlabels.a: b\n",
		"r.yaml":     "replacements:\n- sourceValue: x\n  targets:\n  - select: {}\n    fieldPaths: [metadata.labels.r]\n",
	}
	reg := (&registry.Compiler{RegistryNamespace: "kpatch-system"}).Build([]corev1.ConfigMap{tenant}, nil).Registry
	if n := len(reg.Applied()); n != 2 {
		t.Fatalf("%d files apply: %v", n, reg.Files())
	}
	got := ResolveRules(reg, guarded, createOnly).Resources
	for _, r := range got {
		if !registry.DefaultTenantKindList().Allows(kindOf(r), r.Group) {
			t.Errorf("a tenant's file brought %s", r)
		}
	}
	want := []string{"pods", "services", "configmaps", "deployments", "replicationcontrollers"}
	for _, res := range want {
		if !slices.ContainsFunc(got, func(r schema.GroupVersionResource) bool { return r.Resource == res }) {
			t.Errorf("rules %v: want %s", got, res)
		}
	}

	// a registry that was not narrowed (its tenant's file given whole) is
	// held to the allowlist by the rules all the same
	p, err := kpatch.ParseAndCompile("team-a/mine/all.kpatch", []byte("[team-a/*.*]\nlabels.a: b\n"))
	if err != nil {
		t.Fatal(err)
	}
	whole := registry.NewRegistry([]registry.RegistryFile{{Ref: registry.FileRef{Namespace: "team-a", ConfigMap: "mine", Key: "all.kpatch"}, File: apply.PatchFile{Patch: p}, Patch: p}})
	for _, r := range ResolveRules(whole, guarded, createOnly).Resources {
		if !registry.DefaultTenantKindList().Allows(kindOf(r), r.Group) {
			t.Errorf("an unnarrowed tenant's file brought %s", r)
		}
	}

	admin := configMap("admin", map[string]string{"all.kpatch": "[*.*]\nlabels.a: b\n"})
	reg = (&registry.Compiler{RegistryNamespace: "kpatch-system"}).Build([]corev1.ConfigMap{admin}, nil).Registry
	if got := ResolveRules(reg, guarded, createOnly).Resources; !slices.ContainsFunc(got, func(r schema.GroupVersionResource) bool { return r.Resource == "resourcequotas" }) {
		t.Errorf("the admin's [*.*]: %v, want resourcequotas among them", got)
	}
}

// kindOf is the kind of a resource of guarded.
func kindOf(r schema.GroupVersionResource) string {
	for _, s := range guarded {
		if s.GroupVersionResource == r {
			return s.Kind
		}
	}
	return ""
}
