package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// tenantLabel marks a Namespace as a tenant (informed.TenantLabel).
const tenantLabel = "kpatch.dev/tenant-registry"

// markTenant sets (or, with value "", removes) the tenant mark of a
// Namespace, as the cluster admin.
func markTenant(t *testing.T, ns, value string) {
	t.Helper()
	var cur corev1.Namespace
	ctx := context.Background()
	if err := env.Client.Get(ctx, client.ObjectKey{Name: ns}, &cur); err != nil {
		t.Fatal(err)
	}
	if value == "" {
		delete(cur.Labels, tenantLabel)
	} else {
		cur.Labels[tenantLabel] = value
	}
	if err := env.Client.Update(ctx, &cur); err != nil {
		t.Fatal(err)
	}
}

// aggregate gives the aggregated ClusterRole name (edit, view) its rules,
// as kube-controller-manager's aggregation controller does in a cluster
// (the test's control plane runs no controller manager): the union of the
// rules of the ClusterRoles its aggregationRule selects, themselves
// aggregated first.
func aggregate(t *testing.T, name string) []rbacv1.PolicyRule {
	t.Helper()
	ctx := context.Background()
	var role rbacv1.ClusterRole
	if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, &role); err != nil {
		t.Fatal(err)
	}
	if role.AggregationRule == nil {
		return role.Rules
	}
	var rules []rbacv1.PolicyRule
	for _, sel := range role.AggregationRule.ClusterRoleSelectors {
		ls, err := metav1.LabelSelectorAsSelector(&sel)
		if err != nil {
			t.Fatal(err)
		}
		var list rbacv1.ClusterRoleList
		if err := env.Client.List(ctx, &list, client.MatchingLabelsSelector{Selector: ls}); err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Items {
			if r.Name != name {
				rules = append(rules, aggregate(t, r.Name)...)
			}
		}
	}
	role.Rules = rules
	if err := env.Client.Update(ctx, &role); err != nil {
		t.Fatal(err)
	}
	return rules
}

// editUser is a client of a user bound to the built-in edit ClusterRole
// in namespace ns only, impersonated.
func editUser(t *testing.T, ns, user string) client.Client {
	t.Helper()
	aggregate(t, "edit")
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user + "-edit", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if err := env.Client.Create(context.Background(), rb); err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	// the API server's authorizer reads RoleBindings from its cache
	eventually(t, 30*time.Second, func() error {
		var list corev1.ConfigMapList
		return c.List(context.Background(), &list, client.InNamespace(ns))
	})
	return c
}

// guardrailRules send the webhook every kind a tenant must not reach, and
// the Namespace's updates, as well as Deployments: whatever a tenant's file
// says, the requests reach the webhook.
func guardrailRules() []admissionregistrationv1.RuleWithOperations {
	ops := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	rule := func(group string, resources ...string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: resources}}
	}
	return []admissionregistrationv1.RuleWithOperations{
		rule("apps", "deployments"),
		rule("", "resourcequotas", "limitranges", "namespaces", "secrets"),
		rule("networking.k8s.io", "networkpolicies"),
		rule("rbac.authorization.k8s.io", "rolebindings"),
	}
}

// guardrails are the objects the cluster admin creates in a tenant's
// namespace.
func guardrails(ns string) []client.Object {
	return []client.Object{
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "compute", Namespace: ns},
			Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}},
		&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: ns},
			Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
		&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny-all", Namespace: ns},
			Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "viewers", Namespace: ns},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "auditor"}}},
	}
}

// escalations are a tenant's files, one ConfigMap each, that try to
// change the guardrails, the Namespace, or an object's name; each is a
// compile error at the position given.
var escalations = map[string]struct{ key, src, want string }{
	"quota":     {"q.kpatch", "[resourcequota.*]\nspec.hard.cpu: 1k\n", "q.kpatch:1:1: the target's kind resourcequota is one a tenant's file never patches"},
	"limits":    {"l.kpatch", "[limitrange.*]\nspec.limits.0.max.cpu: \"64\"\n", "l.kpatch:1:1: the target's kind limitrange is one a tenant's file never patches"},
	"netpol":    {"n.yaml", "- target: networkpolicy.deny-all\n  type: merge\n  patch: {spec: {ingress: [{}]}}\n", "n.yaml:1:3: the target's kind networkpolicy is one a tenant's file never patches"},
	"binding":   {"b.kpatch", "[rolebinding.*.subjects[-]]\napiGroup: rbac.authorization.k8s.io\nkind: User\nname: mallory\n", "b.kpatch:1:1: the target's kind rolebinding is one a tenant's file never patches"},
	"namespace": {"ns.kpatch", "[namespace.*]\nlabels.stolen: \"yes\"\n", "ns.kpatch:1:1: the target's kind namespace is one a tenant's file never patches"},
	"secret":    {"s.kpatch", "[secret.*]\nstringData.token: mine\n", "s.kpatch:1:1: the target's kind secret is not on the allowlist"},
	"rename":    {"r.kpatch", "[deployment.*]\nmetadata.name: renamed\n", "r.kpatch:2:1: the entry writes metadata.name"},
	"repl":      {"q.yaml", "replacements:\n- sourceValue: 1k\n  targets:\n  - select: {kind: ResourceQuota}\n    fieldPaths: [spec.hard.cpu]\n", "q.yaml:5:18: the target's select names kind ResourceQuota, one a tenant's file never patches"},
}

// TestTenantEscalations: a user bound to the edit ClusterRole in a
// namespace the cluster admin marked as a tenant writes tenant registries
// there, and none of them changes what the admin set: its files that
// target the namespace's ResourceQuota, LimitRange, NetworkPolicy,
// RoleBinding or the Namespace itself (or a Secret, off the allowlist, or
// rename a Deployment) are compile errors, Events on their ConfigMaps; its
// [*.*] file is narrowed to the allowlist; the admin's objects, created
// and updated through the webhook (whose admin file labels them), come out
// as the admin wrote them. The user cannot mark a namespace itself (edit
// has no rights on Namespaces). A labelled ConfigMap in an unmarked
// namespace patches nothing until the admin marks it, and nothing again
// once the mark is removed. The tenant's own Deployments are patched. With
// managed rules, the tenant's [*.*] never brings the guardrails' kinds into
// the webhook's rules.
func TestTenantEscalations(t *testing.T) {
	ctx := context.Background()
	const marked, unmarked = "tenancy-a", "tenancy-b"
	o := newOwnWebhook(t, "tenancy-e2e", guardrailRules())
	o.namespace(t, marked)
	o.namespace(t, unmarked)
	markTenant(t, marked, "enabled")
	dev := editUser(t, marked, "tenant-dev")

	// the edit user cannot mark, nor unmark, a Namespace
	var ns corev1.Namespace
	if err := env.Client.Get(ctx, client.ObjectKey{Name: unmarked}, &ns); err != nil {
		t.Fatal(err)
	}
	ns.Labels[tenantLabel] = "enabled"
	if err := dev.Update(ctx, &ns); !apierrors.IsForbidden(err) {
		t.Errorf("the edit user labelled Namespace %s: %v, want Forbidden", unmarked, err)
	}
	patch := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"`+tenantLabel+`":"enabled"}}}`))
	if err := dev.Patch(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: marked}}, patch); !apierrors.IsForbidden(err) {
		t.Errorf("the edit user patched its own Namespace: %v, want Forbidden", err)
	}

	// the admin's file labels whatever it is sent in the tenant's namespace:
	// proof that the webhook saw each request (named apart from the other
	// tests' registry ConfigMaps, and deleted after)
	t.Cleanup(func() {
		_ = env.Client.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "tenancy-admin", Namespace: cluster.RegistryNamespace}})
	})
	o.registry(t, cluster.RegistryNamespace, "tenancy-admin", map[string]string{"mark.kpatch": "[" + marked + "/*.*]\nannotations.admin: seen\n"})
	// a labelled ConfigMap of the unmarked namespace, written by the admin
	o.registry(t, unmarked, "theirs", map[string]string{"own.kpatch": "[deployment.*]\nlabels.tenant: unmarked\n"})
	// the tenant's files, written by the edit user
	tenantCM := func(name string, data map[string]string) {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: marked, Labels: map[string]string{"kpatch.dev/registry": o.name}}, Data: data}
		if err := dev.Create(ctx, cm); err != nil {
			t.Fatalf("the edit user creates the ConfigMap %s: %v", name, err)
		}
	}
	for name, e := range escalations {
		tenantCM(name, map[string]string{e.key: e.src})
	}
	tenantCM("all", map[string]string{"all.kpatch": "[*.*]\nlabels.all: \"yes\"\nspec.hard.cpu: 1k\n"})
	tenantCM("own", map[string]string{"own.kpatch": "[deployment.*]\nlabels.tenant: marked\n"})
	o.start(t, "--tenant-registries", "--operations", "CREATE,UPDATE")

	// the tenant's own Deployments are patched, by its own and its [*.*] file
	eventually(t, 60*time.Second, func() error {
		d := deployment(marked, "web")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if d.Labels["tenant"] != "marked" || d.Labels["all"] != "yes" || d.Annotations["admin"] != "seen" || d.Name != "web" {
			return fmt.Errorf("the tenant's Deployment %s: labels %v, annotations %v", d.Name, d.Labels, d.Annotations)
		}
		return nil
	})
	// every escalation is a compile error on its ConfigMap
	for name, e := range escalations {
		eventually(t, 30*time.Second, func() error {
			notes, err := eventOn(marked, name, "PatchCompileFailed")
			if err != nil {
				return err
			}
			for _, n := range notes {
				if strings.Contains(n, marked+"/"+name+"/"+e.want) {
					return nil
				}
			}
			return fmt.Errorf("no PatchCompileFailed Event on %s/%s with %q: %q", marked, name, e.want, notes)
		})
	}
	// the admin's guardrails come out as the admin wrote them, on create
	// and on update
	for _, g := range guardrails(marked) {
		want := g.DeepCopyObject().(client.Object)
		if err := env.Client.Create(ctx, g); err != nil {
			t.Fatalf("%T: %v", g, err)
		}
		checkGuardrail(t, "created", want, g)
		g.SetLabels(map[string]string{"touched": "yes"})
		if err := env.Client.Update(ctx, g); err != nil {
			t.Fatalf("%T: %v", g, err)
		}
		checkGuardrail(t, "updated", want, g)
	}
	// the Namespace, updated by the admin: no tenant label
	var own corev1.Namespace
	if err := env.Client.Get(ctx, client.ObjectKey{Name: marked}, &own); err != nil {
		t.Fatal(err)
	}
	own.Annotations = map[string]string{"touched": "yes"}
	if err := env.Client.Update(ctx, &own); err != nil {
		t.Fatal(err)
	}
	if own.Annotations["admin"] != "seen" || own.Labels["stolen"] != "" || own.Labels["all"] != "" || own.Labels[tenantLabel] != "enabled" {
		t.Errorf("the Namespace after the admin's update: labels %v, annotations %v", own.Labels, own.Annotations)
	}

	// the unmarked namespace's ConfigMap patches nothing; marked, it does;
	// unmarked again, nothing
	d := deployment(unmarked, "web")
	if err := dryRunCreate(d); err != nil {
		t.Fatal(err)
	}
	if len(d.Labels) != 0 {
		t.Errorf("a labelled ConfigMap of an unmarked namespace patched its Deployment: labels %v", d.Labels)
	}
	markTenant(t, unmarked, "enabled")
	eventually(t, 30*time.Second, func() error {
		d := deployment(unmarked, "web")
		if err := dryRunCreate(d); err != nil || d.Labels["tenant"] != "unmarked" {
			return fmt.Errorf("marked: labels %v, %v", d.Labels, err)
		}
		return nil
	})
	markTenant(t, unmarked, "")
	eventually(t, 30*time.Second, func() error {
		d := deployment(unmarked, "web")
		if err := dryRunCreate(d); err != nil || len(d.Labels) != 0 {
			return fmt.Errorf("unmarked again: labels %v, %v", d.Labels, err)
		}
		return nil
	})
	o.stop()

	// managed rules: the admin targets Deployments, the tenant [*.*]; the
	// rules hold Deployments and the allowlist's kinds, never a guardrail's
	o.registry(t, cluster.RegistryNamespace, "tenancy-admin", map[string]string{"mark.kpatch": "[" + marked + "/deployment.*]\nannotations.admin: seen\n"})
	o.start(t, "--tenant-registries", "--manage-webhook-rules", "--webhook-configuration-name", o.name, "--leader-elect", "--leader-election-id", o.name)
	var rules []string
	eventually(t, 60*time.Second, func() error {
		var err error
		if rules, err = rulesOf(o.name); err != nil {
			return err
		}
		if !slices.Contains(rules, "/v1/services") || !slices.Contains(rules, "apps/v1/deployments") {
			return fmt.Errorf("rules %v: want the tenant's services and the admin's deployments", rules)
		}
		return nil
	})
	for _, r := range rules {
		for _, never := range []string{"resourcequotas", "limitranges", "networkpolicies", "rolebindings", "roles", "namespaces", "secrets", "clusterroles"} {
			if strings.HasSuffix(r, "/"+never) {
				t.Errorf("the managed rules hold %s after a tenant's [*.*]: %v", r, rules)
			}
		}
	}
	t.Logf("managed rules with a tenant's [*.*]: %v", rules)
}

// checkGuardrail fails unless got, as the API server stored it (what),
// has want's spec, subjects and name, and the admin file's annotation.
func checkGuardrail(t *testing.T, what string, want, got client.Object) {
	t.Helper()
	if got.GetAnnotations()["admin"] != "seen" {
		t.Errorf("%s %T %s: annotations %v: the webhook did not see it", what, got, got.GetName(), got.GetAnnotations())
	}
	if got.GetLabels()["all"] != "" || got.GetName() != want.GetName() {
		t.Errorf("%s %T: a tenant's file patched it: name %s, labels %v", what, got, got.GetName(), got.GetLabels())
	}
	var same bool
	switch g := got.(type) {
	case *corev1.ResourceQuota:
		same = g.Spec.Hard.Cpu().Cmp(resource.MustParse("2")) == 0 && len(g.Spec.Hard) == 1
	case *corev1.LimitRange:
		same = len(g.Spec.Limits) == 1 && g.Spec.Limits[0].Max.Cpu().Cmp(resource.MustParse("1")) == 0
	case *networkingv1.NetworkPolicy:
		same = len(g.Spec.Ingress) == 0
	case *rbacv1.RoleBinding:
		same = len(g.Subjects) == 1 && g.Subjects[0].Name == "auditor"
	}
	if !same {
		t.Errorf("%s %T %s: changed: %+v", what, got, got.GetName(), got)
	}
}
