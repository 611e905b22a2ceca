package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// tenantCM is a registry ConfigMap of the tenant namespace ns.
func tenantCM(ns, name string, data map[string]string) corev1.ConfigMap {
	cm := configMap(name, data)
	cm.Namespace = ns
	return cm
}

// buildTenants compiles cms with tenants of kpatch-system under tenancy.
func buildTenants(tenancy Tenancy, cms ...corev1.ConfigMap) *Registry {
	return (&Compiler{RegistryNamespace: "kpatch-system", Tenancy: tenancy}).Build(cms, nil).Registry
}

// tenantErrors compiles each file as team-a's and returns its error, by
// key ("<nil>" when it compiles).
func tenantErrors(t *testing.T, tenancy Tenancy, files map[string]string) map[string]string {
	t.Helper()
	reg := buildTenants(tenancy, tenantCM("team-a", "mine", files))
	out := map[string]string{}
	for _, f := range reg.Files() {
		out[f.Ref.Key] = fmt.Sprint(f.Err)
	}
	return out
}

// TestTenantNeverPatchesTheGuardrails: a tenant's file that targets a
// kind of NeverTenantKinds, or one the allowlist does not hold, is a
// compile error at its target, whatever the form of the file.
func TestTenantNeverPatchesTheGuardrails(t *testing.T) {
	files := map[string]string{
		"ok.kpatch":      "[deployment.web]\nreplicas: 2\n",
		"quota.kpatch":   "[resourcequota.*]\nspec.hard.cpu: 1k\n",
		"limits.yaml":    "- target: limitrange.*\n  type: merge\n  patch: {spec: {limits: []}}\n",
		"netpol.kpatch":  "[networkpolicy(networking.k8s.io).deny-all]\nspec.podSelector.matchLabels.x: y\n",
		"binding.kpatch": "[rolebinding.edit.subjects[-]]\nkind: User\nname: me\n",
		"ns.kpatch":      "[namespace.team-a]\nlabels.kpatch.dev/tenant-registry: enabled\n",
		"secret.kpatch":  "[secret.db]\nstringData.password: x\n",
		"quota.yaml":     "replacements:\n- sourceValue: 1k\n  targets:\n  - select: {kind: ResourceQuota}\n    fieldPaths: [spec.hard.cpu]\n",
	}
	got := tenantErrors(t, Tenancy{}, files)
	want := map[string]string{
		"ok.kpatch":      "<nil>",
		"quota.kpatch":   "team-a/mine/quota.kpatch:1:1: the target's kind resourcequota is one a tenant's file never patches",
		"limits.yaml":    "team-a/mine/limits.yaml:1:3: the target's kind limitrange is one a tenant's file never patches",
		"netpol.kpatch":  "team-a/mine/netpol.kpatch:1:1: the target's kind networkpolicy is one a tenant's file never patches",
		"binding.kpatch": "team-a/mine/binding.kpatch:1:1: the target's kind rolebinding is one a tenant's file never patches",
		"ns.kpatch":      "team-a/mine/ns.kpatch:1:1: the target's kind namespace is one a tenant's file never patches",
		"secret.kpatch":  "team-a/mine/secret.kpatch:1:1: the target's kind secret is not on the allowlist",
		"quota.yaml":     "team-a/mine/quota.yaml:5:18: the target's select names kind ResourceQuota, one a tenant's file never patches",
	}
	for key, w := range want {
		if !strings.HasPrefix(got[key], w) {
			t.Errorf("%s: %s\nwant %s...", key, got[key], w)
		}
	}
	// an allowlist that names Secret lets a tenant patch Secrets, never a
	// guardrail
	kinds, err := ParseTenantKinds([]string{"Secret", "Deployment.apps"})
	if err != nil {
		t.Fatal(err)
	}
	got = tenantErrors(t, Tenancy{Kinds: kinds}, map[string]string{"secret.kpatch": files["secret.kpatch"], "svc.kpatch": "[service.web]\nlabels.a: b\n"})
	if got["secret.kpatch"] != "<nil>" || !strings.Contains(got["svc.kpatch"], "not on the allowlist") || !strings.Contains(got["svc.kpatch"], "--tenant-kinds Secret.core,Deployment.apps") {
		t.Errorf("with --tenant-kinds=Secret,Deployment.apps: %v", got)
	}
}

// TestTenantKindsNeverHoldTheGuardrails: --tenant-kinds refuses a kind of
// NeverTenantKinds, in any group.
func TestTenantKindsNeverHoldTheGuardrails(t *testing.T) {
	for _, list := range [][]string{{"ResourceQuota"}, {"Deployment", "networkpolicy.crd.projectcalico.org"}, {"Namespace"}, {"ClusterRoleBinding"}, {"customresourcedefinition.apiextensions.k8s.io"}} {
		if _, err := ParseTenantKinds(list); !errors.Is(err, ErrTenantKind) {
			t.Errorf("%v: %v, want ErrTenantKind", list, err)
		}
	}
	for _, list := range [][]string{{"deploy ment"}, {"Deployment.Apps"}, {".apps"}} {
		if _, err := ParseTenantKinds(list); err == nil {
			t.Errorf("%v: no error", list)
		}
	}
	k := DefaultTenantKindList()
	for _, ok := range []struct{ kind, group string }{{"Deployment", "apps"}, {"Pod", ""}, {"CronJob", "batch"}, {"Service", ""}, {"Ingress", "networking.k8s.io"}, {"HorizontalPodAutoscaler", "autoscaling"}, {"PodDisruptionBudget", "policy"}} {
		if !k.Allows(ok.kind, ok.group) {
			t.Errorf("the default allowlist refuses %s in %q", ok.kind, ok.group)
		}
	}
	for _, no := range []struct{ kind, group string }{{"Secret", ""}, {"Service", "serving.knative.dev"}, {"ResourceQuota", ""}, {"Role", "rbac.authorization.k8s.io"}, {"Namespace", ""}} {
		if k.Allows(no.kind, no.group) {
			t.Errorf("the default allowlist admits %s in %q", no.kind, no.group)
		}
	}
}

// TestTenantGlobsAreNarrowed: a tenant's kind glob or @workload matches
// the allowlist's kinds only: its targets, the index and the objects it
// applies to; one that admits no kind of it does not compile.
func TestTenantGlobsAreNarrowed(t *testing.T) {
	reg := buildTenants(Tenancy{}, tenantCM("team-a", "mine", map[string]string{
		"all.kpatch":      "[*.*]\nlabels.all: \"yes\"\n",
		"workload.kpatch": "[@workload.*]\nlabels.workload: \"yes\"\n",
		"quota.kpatch":    "[*quota.*]\nlabels.q: \"yes\"\n",
		"all.yaml":        "replacements:\n- sourceValue: x\n  targets:\n  - select: {}\n    fieldPaths: [metadata.labels.repl]\n    options: {create: true}\n",
	}))
	for _, f := range reg.Files() {
		if want := f.Ref.Key == "quota.kpatch"; (f.Err != nil) != want || want && !strings.Contains(f.Err.Error(), "matches no kind of the allowlist") {
			t.Errorf("%s: %v", f.Ref, f.Err)
		}
	}
	for _, f := range reg.Applied() {
		for _, target := range f.File.Targets() {
			if !DefaultTenantKindList().AllowsKind(target.Kind) || target.Namespace != "team-a" {
				t.Errorf("%s: target %s", f.Ref, target)
			}
		}
	}
	objects := []struct {
		apiVersion, kind string
		want             string
	}{
		{"apps/v1", "Deployment", "all,repl,workload"},
		{"v1", "Pod", "all,repl,workload"},
		{"v1", "Service", "all,repl"},
		{"v1", "ResourceQuota", ""},
		{"v1", "LimitRange", ""},
		{"networking.k8s.io/v1", "NetworkPolicy", ""},
		{"rbac.authorization.k8s.io/v1", "RoleBinding", ""},
		{"v1", "Secret", ""},
		{"v1", "Namespace", ""},
	}
	for _, o := range objects {
		ns := "team-a"
		if o.kind == "Namespace" {
			ns = "" // a Namespace's request names the Namespace itself
		}
		obj := map[string]any{"apiVersion": o.apiVersion, "kind": o.kind, "metadata": map[string]any{"name": "team-a", "namespace": ns}}
		files := reg.Candidates(o.kind, "team-a", "team-a")
		run, err := apply.RunObject(context.Background(), obj, files, &apply.Options{ApplyOptions: kpatch.ApplyOptions{Namespace: "team-a"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := labelKeys(run.Out); got != o.want {
			t.Errorf("%s: labels %q, want %q", o.kind, got, o.want)
		}
		// whatever the index says, the files never match a refused kind
		for _, f := range reg.Applied() {
			if o.want == "" && f.File.MayTarget(o.kind, "team-a", "team-a") {
				t.Errorf("%s may target %s", f.Ref, o.kind)
			}
		}
	}
}

func labelKeys(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	l, _ := md["labels"].(map[string]any)
	var keys []string
	for _, k := range []string{"all", "q", "repl", "workload"} {
		if l[k] != nil {
			keys = append(keys, k)
		}
	}
	return strings.Join(keys, ",")
}

// TestTenantNeverWritesIdentityOrOwnership: every way a file writes a
// field (an entry, a whole value of metadata, an insertion, a delete, a
// header path, @workload's pod metadata, a strategic or JSON merge patch
// and its directives, a replacements field path, the default one
// included) is a compile error at that entry when it reaches
// metadata.name, namespace, ownerReferences or finalizers.
func TestTenantNeverWritesIdentityOrOwnership(t *testing.T) {
	cases := map[string]string{
		"name.kpatch":       "[deployment.web]\nlabels.a: b\nmetadata.name: other\n",
		"namespace.kpatch":  "[service.*]\nmetadata.namespace: other\n",
		"owner.kpatch":      "[deployment.web]\nmetadata.ownerReferences.0.name: x\n",
		"finalizer.kpatch":  "[deployment.web]\n[delete]metadata.finalizers:\n",
		"header.kpatch":     "[deployment.web.metadata]\nlabels.a: b\nfinalizers.0: x\n",
		"insert.kpatch":     "[deployment.web.metadata.finalizers[-]]\nname: x\n",
		"deleteitem.kpatch": "[deployment.web.metadata.finalizers[delete=0]]\n",
		"workload.kpatch":   "[@workload.*]\ntemplate.metadata.name: x\n",
		"wmeta.kpatch":      "[@workload.*]\nmetadata.finalizers.0: x\n",
		"glob.kpatch":       "[*.*]\nmetadata.name: x\n",
		"whole.yaml":        "- target: deployment.web\n  patch:\n    metadata: {labels: {a: b}}\n",
		"wholevar.kpatch":   "[deployment.web]\nmetadata: ${values.meta}\n",
		"strategic.yaml":    "- target: deployment.web\n  type: strategic\n  patch: {metadata: {name: x}}\n",
		"directive.yaml":    "- target: deployment.web\n  type: strategic\n  patch: {metadata: {$deleteFromPrimitiveList/finalizers: [x]}}\n",
		"replace.yaml":      "- target: deployment.web\n  type: strategic\n  patch: {$patch: replace, spec: {}}\n",
		"merge.yaml":        "- target: configmap.web\n  type: merge\n  patch: {metadata: null}\n",
		"repl.yaml":         "replacements:\n- sourceValue: x\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [metadata.labels.a, metadata.ownerReferences.0.name]\n",
		"repldefault.yaml":  "replacements:\n- sourceValue: x\n  targets:\n  - select: {kind: Deployment}\n",
		"replwhole.yaml":    "replacements:\n- sourceValue: x\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [metadata]\n",
		// what a tenant may write
		"labels.kpatch":     "[deployment.web]\nlabels.a: b\nannotations.b: c\nmetadata.labels.c: d\n",
		"template.kpatch":   "[deployment.web]\ntemplate.metadata.name: x\n",
		"podmeta.kpatch":    "[@workload.*]\ntemplate.metadata.labels.a: b\n",
		"labels.yaml":       "- target: deployment.web\n  type: strategic\n  patch: {metadata: {labels: {a: b}}, spec: {replicas: 2}}\n",
		"repllabels.yaml":   "replacements:\n- sourceValue: x\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [metadata.labels.a, spec.template.metadata.name]\n",
		"metalabels.kpatch": "[deployment.web.metadata.labels]\na: b\n",
	}
	got := tenantErrors(t, Tenancy{}, cases)
	want := map[string]string{
		"name.kpatch":       "team-a/mine/name.kpatch:3:1: the entry writes metadata.name:",
		"namespace.kpatch":  "team-a/mine/namespace.kpatch:2:1: the entry writes metadata.namespace:",
		"owner.kpatch":      "team-a/mine/owner.kpatch:2:1: the entry writes metadata.ownerReferences:",
		"finalizer.kpatch":  "team-a/mine/finalizer.kpatch:2:1: the entry writes metadata.finalizers:",
		"header.kpatch":     "team-a/mine/header.kpatch:3:1: the entry writes metadata.finalizers:",
		"insert.kpatch":     "team-a/mine/insert.kpatch:2:1: the entry writes metadata.finalizers:",
		"deleteitem.kpatch": "team-a/mine/deleteitem.kpatch:1:1: the header writes metadata.finalizers:",
		"workload.kpatch":   "team-a/mine/workload.kpatch:2:1: the entry writes metadata.name:",
		"wmeta.kpatch":      "team-a/mine/wmeta.kpatch:2:1: the entry writes metadata.finalizers:",
		"glob.kpatch":       "team-a/mine/glob.kpatch:2:1: the entry writes metadata.name:",
		"whole.yaml":        "team-a/mine/whole.yaml:3:5: the entry writes metadata (whole",
		"wholevar.kpatch":   "team-a/mine/wholevar.kpatch:2:1: the entry writes metadata (whole",
		"strategic.yaml":    "team-a/mine/strategic.yaml:1:3: the patch writes metadata.name:",
		"directive.yaml":    "team-a/mine/directive.yaml:1:3: the patch writes metadata.$deleteFromPrimitiveList/finalizers:",
		"replace.yaml":      "team-a/mine/replace.yaml:1:3: the patch writes the whole object ($patch):",
		"merge.yaml":        "team-a/mine/merge.yaml:1:3: the patch writes metadata (whole",
		"repl.yaml":         `team-a/mine/repl.yaml:5:37: the field path "metadata.ownerReferences.0.name" writes metadata.ownerReferences:`,
		"repldefault.yaml":  `team-a/mine/repldefault.yaml:4:5: the field path "metadata.name" writes metadata.name:`,
		"replwhole.yaml":    `team-a/mine/replwhole.yaml:5:18: the field path "metadata" writes metadata (whole`,
	}
	for key := range cases {
		w, refused := want[key]
		switch {
		case !refused && got[key] != "<nil>":
			t.Errorf("%s: %s; a tenant may write that", key, got[key])
		case refused && !strings.HasPrefix(got[key], w):
			t.Errorf("%s: %s\nwant %s...", key, got[key], w)
		}
	}
	// the sentinel, through the file's error list
	reg := buildTenants(Tenancy{}, tenantCM("team-a", "mine", map[string]string{"n.kpatch": cases["name.kpatch"]}))
	if f := reg.Files()[0]; !errors.Is(f.Err, ErrTenantField) {
		t.Errorf("%v: not ErrTenantField", f.Err)
	}
	// the admin may
	admin := (&Compiler{RegistryNamespace: "kpatch-system"}).Build([]corev1.ConfigMap{configMap("admin", map[string]string{"n.kpatch": cases["name.kpatch"], "q.kpatch": "[resourcequota.*]\nspec.hard.cpu: 1k\n"})}, nil).Registry
	for _, f := range admin.Files() {
		if f.Err != nil {
			t.Errorf("the admin's %s: %v", f.Ref, f.Err)
		}
	}
}

// TestTenantLimitsAreEachTenants: each tenant has its own files and
// compiled size: one over its limit is refused alone; the others, and the
// admin, are not crowded out whatever their namespace's order.
func TestTenantLimitsAreEachTenants(t *testing.T) {
	small := "[deployment.*]\nlabels.a: b\n"
	big := "[deployment.*]\nlabels.a: " + strings.Repeat("x", 400) + "\n"
	tenancy := Tenancy{Limits: Limits{MaxFiles: 2, MaxCompiledSize: estimate(small, "") * 3}}
	c := &Compiler{RegistryNamespace: "kpatch-system", Limits: Limits{MaxFiles: 1, MaxCompiledSize: estimate(small, "")}, Tenancy: tenancy}
	b := c.Build([]corev1.ConfigMap{
		configMap("admin", map[string]string{"a.kpatch": small}),
		tenantCM("aaa", "many", map[string]string{"1.kpatch": small, "2.kpatch": small, "3.kpatch": small}),
		tenantCM("bbb", "large", map[string]string{"big.kpatch": big, "small.kpatch": small}),
		tenantCM("ccc", "fine", map[string]string{"1.kpatch": small, "2.kpatch": small}),
	}, nil)
	got := map[string]string{}
	for _, f := range b.Registry.Files() {
		got[f.Ref.String()] = LimitOf(f.Err)
		if f.Err == nil {
			got[f.Ref.String()] = "ok"
		}
	}
	want := map[string]string{
		"admin/a.kpatch":         "ok",
		"aaa/many/1.kpatch":      "ok",
		"aaa/many/2.kpatch":      "ok",
		"aaa/many/3.kpatch":      LimitTenantFiles,
		"bbb/large/big.kpatch":   LimitTenantCompiledSize,
		"bbb/large/small.kpatch": "ok",
		"ccc/fine/1.kpatch":      "ok",
		"ccc/fine/2.kpatch":      "ok",
	}
	for ref, w := range want {
		if got[ref] != w {
			t.Errorf("%s: %q, want %q", ref, got[ref], w)
		}
	}
	if n := len(b.Problems); n != 2 {
		t.Errorf("%d problems, want the two refused files'", n)
	}
}

// TestTenantFileBoundPerObjectStaysHeld: a tenant's file bound to each
// object (a built-in of its Namespace) is held to the allowlist after
// binding as before: its bound form neither may target nor matches a
// guardrail's kind.
func TestTenantFileBoundPerObjectStaysHeld(t *testing.T) {
	reg := buildTenants(Tenancy{}, tenantCM("team-a", "mine", map[string]string{
		"all.kpatch": "[*.*]\nlabels.part-of: ${namespace.labels.app.kubernetes.io/part-of}\n",
	}))
	files := reg.Candidates("Deployment", "team-a", "web")
	if len(files) != 1 || !reg.VariesByObject(files[0]) {
		t.Fatalf("candidates %v", files)
	}
	ns := namespace("team-a", nil)
	for _, o := range []struct{ apiVersion, kind, want string }{{"apps/v1", "Deployment", "team-a-shop"}, {"v1", "ResourceQuota", ""}} {
		obj := map[string]any{"apiVersion": o.apiVersion, "kind": o.kind, "metadata": map[string]any{"name": "web", "namespace": "team-a"}}
		ref := kpatch.RefOf(obj, "team-a")
		bound, err := reg.ForObject(files[0], NewObjectContext(o.kind, &ref, ns, nil, obj))
		if err != nil {
			t.Fatal(err)
		}
		if bound == nil && o.want == "" {
			continue // not its target: the narrowed targets leave the guardrail's kind out
		}
		if _, held := bound.(*tenantFile); !held {
			t.Fatalf("%s: bound to %T, no longer held", o.kind, bound)
		}
		if bound.MayTarget("ResourceQuota", "team-a", "web") {
			t.Errorf("%s: the bound file may target a ResourceQuota", o.kind)
		}
		run, err := apply.RunObject(context.Background(), obj, []apply.File{bound}, &apply.Options{ApplyOptions: kpatch.ApplyOptions{Namespace: "team-a"}})
		if err != nil {
			t.Fatal(err)
		}
		md := run.Out["metadata"].(map[string]any)
		labels, _ := md["labels"].(map[string]any)
		got, _ := labels["part-of"].(string)
		if got != o.want {
			t.Errorf("%s: part-of=%q, want %q", o.kind, got, o.want)
		}
	}
}
