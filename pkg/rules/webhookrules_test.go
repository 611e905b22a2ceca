package rules

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"kpatch.dev/kpatch/pkg/registry"
)

var createOnly = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}

func served(group, version, resource, kind string, namespaced bool, verbs ...string) ServedResource {
	if len(verbs) == 0 {
		verbs = []string{"create", "get", "list", "update"}
	}
	return ServedResource{GroupVersionResource: schema.GroupVersionResource{Group: group, Version: version, Resource: resource}, Kind: kind, Namespaced: namespaced, Verbs: verbs}
}

// cluster is what a cluster with one CRD (two versions) serves.
var cluster = []ServedResource{
	served("", "v1", "pods", "Pod", true),
	served("", "v1", "pods/status", "Pod", true),
	served("", "v1", "configmaps", "ConfigMap", true),
	served("", "v1", "services", "Service", true),
	served("", "v1", "namespaces", "Namespace", false),
	served("", "v1", "bindings", "Binding", true, "create"),
	served("", "v1", "componentstatuses", "ComponentStatus", false, "get", "list"),
	served("apps", "v1", "deployments", "Deployment", true),
	served("apps", "v1", "statefulsets", "StatefulSet", true),
	served("apps", "v1", "daemonsets", "DaemonSet", true),
	served("apps", "v1", "replicasets", "ReplicaSet", true),
	served("batch", "v1", "jobs", "Job", true),
	served("batch", "v1", "cronjobs", "CronJob", true),
	served("", "v1", "replicationcontrollers", "ReplicationController", true),
	served("example.com", "v1", "widgets", "Widget", true),
	served("example.com", "v1beta1", "widgets", "Widget", true),
	served("example.com", "v1", "gadgets", "Gadget", true),
	served("other.io", "v1", "deployments", "Deployment", true),
}

func resolve(t *testing.T, files map[string]string) *ResolvedRules {
	t.Helper()
	var c registry.Compiler
	b := c.Build([]corev1.ConfigMap{configMap("reg", files)}, nil)
	for _, f := range b.Registry.Files() {
		if f.Err != nil {
			t.Fatal(f.Err)
		}
	}
	return ResolveRules(b.Registry, cluster, createOnly)
}

func resources(r *ResolvedRules) string {
	var out []string
	for _, gvr := range r.Resources {
		out = append(out, gvr.Resource+"."+gvr.Version+"."+gvr.Group)
	}
	return strings.Join(out, " ")
}

func TestResolveRules(t *testing.T) {
	for name, c := range map[string]struct{ file, want string }{
		// a kind without a group: every group's kind of that name
		"kind":          {"[deployment.web]\nreplicas: 2\n", "deployments.v1.apps deployments.v1.other.io"},
		"kind in group": {"[deployment(apps).web]\nreplicas: 2\n", "deployments.v1.apps"},
		"custom kind":   {"[widget.w]\nspec.size: 2\n", "widgets.v1.example.com widgets.v1beta1.example.com"},
		"version":       {"[widget(example.com/v1beta1).w]\nspec.size: 2\n", "widgets.v1beta1.example.com"},
		"custom group":  {"[*(example.com).w]\nspec.size: 2\n", "gadgets.v1.example.com widgets.v1.example.com widgets.v1beta1.example.com"},
		"workload": {"[@workload.w]\nlabels.a: b\n",
			"pods.v1. replicationcontrollers.v1. daemonsets.v1.apps deployments.v1.apps replicasets.v1.apps statefulsets.v1.apps cronjobs.v1.batch jobs.v1.batch"},
		// a glob over every kind: the built-in kinds the engine knows, served, namespaced, that take create
		"every kind": {"[*.w]\nlabels.a: b\n",
			"bindings.v1. configmaps.v1. pods.v1. replicationcontrollers.v1. services.v1. daemonsets.v1.apps deployments.v1.apps replicasets.v1.apps statefulsets.v1.apps cronjobs.v1.batch jobs.v1.batch"},
		"set glob": {"[*Set.w]\nlabels.a: b\n", "daemonsets.v1.apps replicasets.v1.apps statefulsets.v1.apps"},
	} {
		r := resolve(t, map[string]string{"f.kpatch": c.file})
		if got := resources(r); got != c.want {
			t.Errorf("%s: %s\nwant %s", name, got, c.want)
		}
		if len(r.Unserved) != 0 {
			t.Errorf("%s: unserved %v", name, r.Unserved)
		}
	}
}

func TestResolveRulesUnserved(t *testing.T) {
	r := resolve(t, map[string]string{
		"a.kpatch": "[gizmo.g]\nspec.a: b\n\n[deployment.web]\nreplicas: 2\n",
		"b.kpatch": "[namespace.n]\nlabels.a: b\n",
	})
	var got []string
	for _, u := range r.Unserved {
		got = append(got, u.String())
	}
	want := "a.kpatch: no served namespaced resource has the kind of [gizmo.g];b.kpatch: no served namespaced resource has the kind of [namespace.n]"
	if strings.Join(got, ";") != want {
		t.Errorf("unserved %q", got)
	}
}

func TestRulesGroupVersions(t *testing.T) {
	r := resolve(t, map[string]string{"f.kpatch": "[widget.w]\nspec.a: b\n\n[pod.p]\nlabels.a: b\n\n[configmap.c]\ndata.a: b\n"})
	ns := admissionregistrationv1.NamespacedScope
	want := []admissionregistrationv1.RuleWithOperations{
		{Operations: createOnly, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps", "pods"}, Scope: &ns}},
		{Operations: createOnly, Rule: admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1", "v1beta1"}, Resources: []string{"widgets"}, Scope: &ns}},
	}
	if got := r.Rules(); !reflect.DeepEqual(got, want) {
		t.Errorf("rules %+v", got)
	}
}

// TestRulesKeeperPatchesOnlyWhenDifferent: the keeper writes the rules
// once, leaves them alone when they are right, and reports an unserved
// target once on its ConfigMap.
func TestRulesKeeperPatchesOnlyWhenDifferent(t *testing.T) {
	cm := registryConfigMap("reg", map[string]string{"f.kpatch": "[deployment(apps).web]\nreplicas: 2\n\n[gizmo.g]\nspec.a: b\n"})
	cm.Namespace = "kpatch-system"
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "kpatch"},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{{Name: "mutate.kpatch.dev"}},
	}
	writes := 0
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(cm, mwc).Build()
	counting := interceptPatch(c, &writes)
	var comp registry.Compiler
	reg := comp.Build([]corev1.ConfigMap{*cm}, nil).Registry
	events := &eventLog{}
	k := &RulesKeeper{
		Name: "kpatch", Reader: c, Writer: counting, ConfigMaps: c, RegistryNamespace: "kpatch-system",
		Registry: func() *registry.Registry { return reg }, Operations: createOnly, Recorder: events, Log: logr.Discard(),
		Discover: func(context.Context) ([]ServedResource, error) { return cluster, nil },
	}
	for range 2 {
		res, err := k.Reconcile(context.Background(), reconcileRequest)
		if err != nil {
			t.Fatal(err)
		}
		if res.RequeueAfter != rulesRetryUnserved {
			t.Errorf("requeue after %s with an unserved target", res.RequeueAfter)
		}
	}
	if writes != 1 {
		t.Errorf("%d writes, want 1", writes)
	}
	var got admissionregistrationv1.MutatingWebhookConfiguration
	if err := c.Get(context.Background(), client.ObjectKey{Name: "kpatch"}, &got); err != nil {
		t.Fatal(err)
	}
	if rules := got.Webhooks[0].Rules; len(rules) != 1 || rules[0].Resources[0] != "deployments" || rules[0].APIGroups[0] != "apps" {
		t.Errorf("rules %+v", rules)
	}
	ev := events.take()
	if len(ev) != 1 || ev[0].reason != ReasonPatchKindNotFound || ev[0].regarding != "reg" || !strings.Contains(ev[0].note, "[gizmo.g]") {
		t.Errorf("events %+v", ev)
	}
}

// TestResolveRulesOfReplacements: a replacements file takes the resources
// of the kinds its selects name, in every group.
func TestResolveRulesOfReplacements(t *testing.T) {
	got := resolve(t, map[string]string{"r.yaml": "replacements:\n- source: {kind: ConfigMap, name: c, fieldPath: data.a}\n  targets:\n  - select: {kind: Widget}\n    fieldPaths: [spec.a]\n  - select: {name: any}\n    fieldPaths: [spec.b]\n"})
	if r := resources(got); r != "widgets.v1.example.com widgets.v1beta1.example.com" || len(got.Unserved) != 0 {
		t.Errorf("resources %s, unserved %v", r, got.Unserved)
	}
}

// TestRulesOperations: a resource's rule takes the union of the
// operations of the files that target it, among the webhook's and those
// the resource takes; a file none of whose operations the webhook
// patches takes no resource and is not unserved.
func TestRulesOperations(t *testing.T) {
	var c registry.Compiler
	b := c.Build([]corev1.ConfigMap{configMap("reg", map[string]string{
		"a.kpatch": "# kpatch:operations: CREATE\n[deployment(apps).web]\nreplicas: 2\n\n[pod.p]\nlabels.a: b\n\n[binding.b]\nlabels.a: b\n",
		"b.kpatch": "[configmap.c]\ndata.a: b\n\n[pod.*]\nlabels.b: c\n",
		"c.kpatch": "# kpatch:operations: UPDATE\n[statefulset.s]\nreplicas: 2\n\n[binding.b]\nlabels.a: b\n",
		"d.yaml":   "- metadata: {operations: [UPDATE]}\n- target: job.j\n  patch: {labels.a: b}\n",
	})}, nil)
	both := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	update := []admissionregistrationv1.OperationType{admissionregistrationv1.Update}
	ns := admissionregistrationv1.NamespacedScope
	rule := func(ops []admissionregistrationv1.OperationType, group string, resources ...string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: resources, Scope: &ns}}
	}
	r := ResolveRules(b.Registry, cluster, both)
	want := []admissionregistrationv1.RuleWithOperations{
		// bindings take create only: c's UPDATE does not reach them
		rule(createOnly, "", "bindings"),
		rule(both, "", "configmaps", "pods"),
		rule(createOnly, "apps", "deployments"),
		rule(update, "apps", "statefulsets"),
		rule(update, "batch", "jobs"),
	}
	if got := r.Rules(); !reflect.DeepEqual(got, want) {
		t.Errorf("rules\n%+v\nwant\n%+v", got, want)
	}
	// bindings take no update: c's binding target reaches nothing
	if len(r.Unserved) != 1 || r.Unserved[0].Ref.Key != "c.kpatch" || r.Unserved[0].Target != "binding.b" {
		t.Errorf("unserved %v", r.Unserved)
	}
	// --operations=CREATE: the UPDATE-only files take nothing
	r = ResolveRules(b.Registry, cluster, createOnly)
	want = []admissionregistrationv1.RuleWithOperations{
		rule(createOnly, "", "bindings", "configmaps", "pods"),
		rule(createOnly, "apps", "deployments"),
	}
	if got := r.Rules(); !reflect.DeepEqual(got, want) {
		t.Errorf("CREATE only: rules\n%+v\nwant\n%+v", got, want)
	}
	if len(r.Unserved) != 0 {
		t.Errorf("CREATE only: unserved %v", r.Unserved)
	}
}
