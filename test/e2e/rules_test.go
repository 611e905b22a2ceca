package e2e

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// staticRules are rules as the chart hard-codes them: the initial rules.
func staticRules() []admissionregistrationv1.RuleWithOperations {
	create := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	return []admissionregistrationv1.RuleWithOperations{
		{Operations: create, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods", "services", "configmaps"}}},
		deploymentRule(),
	}
}

// rulesOf returns the group/version/resource triples of the configuration's
// rules.
func rulesOf(name string) ([]string, error) {
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, &mwc); err != nil {
		return nil, err
	}
	var out []string
	for _, r := range mwc.Webhooks[0].Rules {
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				for _, res := range r.Resources {
					out = append(out, g+"/"+v+"/"+res)
				}
			}
		}
	}
	return out, nil
}

// createConfigMaps creates n ConfigMaps in ns, an unrelated kind.
func createConfigMaps(t *testing.T, ns, prefix string, n int) {
	t.Helper()
	for i := range n {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i), Namespace: ns}}
		if err := env.Client.Create(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
	}
}

// widgetCRD is a namespaced custom resource, e2e.kpatch.dev/v1 Widget.
func widgetCRD() *unstructured.Unstructured {
	return openCRD("e2e.kpatch.dev", "v1", "Widget", "widgets")
}

// openCRD is the CustomResourceDefinition of a namespaced kind of group
// and version, served and stored, whose objects hold any content.
func openCRD(group, version, kind, plural string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group,
			"scope": "Namespaced",
			"names": map[string]any{"plural": plural, "singular": strings.ToLower(kind), "kind": kind, "listKind": kind + "List"},
			"versions": []any{map[string]any{
				"name": version, "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
			}},
		},
	}}
}

func widget(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "e2e.kpatch.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"size": int64(1)},
	}}
}

// TestRulesFollowTheRegistry: with --manage-webhook-rules the leader
// narrows the configuration's rules from the chart's static ones to the
// Deployments its registry targets, so ConfigMaps no longer reach the
// webhook; a file targeting a custom resource's kind that does not exist
// yet is a PatchKindNotFound Event, and once the CRD is created the rules
// take it and its objects are patched. The test never edits the
// configuration.
func TestRulesFollowTheRegistry(t *testing.T) {
	ctx := context.Background()
	o := newOwnWebhook(t, "rules-e2e", staticRules())
	o.namespace(t, "rules-e2e")
	o.registry(t, cluster.RegistryNamespace, "apps", map[string]string{"web.kpatch": "[deployment.web]\nreplicas: 3\n"})

	// the static rules: every ConfigMap created reaches the webhook
	o.start(t)
	before := o.requests(t)
	createConfigMaps(t, "rules-e2e", "static", 20)
	static := o.requests(t) - before
	if static != 20 {
		t.Errorf("%d of 20 ConfigMaps reached the webhook with the static rules", static)
	}
	o.stop()

	o.start(t, "--manage-webhook-rules", "--webhook-configuration-name", o.name, "--leader-elect", "--leader-election-id", o.name)
	want := []string{"apps/v1/deployments"}
	eventually(t, 60*time.Second, func() error {
		got, err := rulesOf(o.name)
		if err != nil || !reflect.DeepEqual(got, want) {
			return fmt.Errorf("rules %v, %v; want %v", got, err, want)
		}
		return nil
	})
	before = o.requests(t)
	createConfigMaps(t, "rules-e2e", "managed", 20)
	managed := o.requests(t) - before
	if managed != 0 {
		t.Errorf("%d of 20 ConfigMaps reached the webhook with managed rules", managed)
	}
	t.Logf("ConfigMap creates that reached the webhook: %d of 20 with the static rules, %d of 20 with managed rules", static, managed)
	d := deployment("rules-e2e", "web")
	if err := dryRunCreate(d); err != nil || *d.Spec.Replicas != 3 {
		t.Errorf("the Deployment was not patched: %v", err)
	}

	// a file for a kind that does not exist yet
	o.registry(t, cluster.RegistryNamespace, "widgets", map[string]string{"w.kpatch": "[widget(e2e.kpatch.dev).*]\nspec.size: 3\n"})
	eventually(t, 60*time.Second, func() error {
		notes, err := eventOn(cluster.RegistryNamespace, "widgets", "PatchKindNotFound")
		if err != nil || len(notes) == 0 || !strings.Contains(notes[0], "[widget(e2e.kpatch.dev).*]") {
			return fmt.Errorf("no PatchKindNotFound Event on widgets: %q, %v", notes, err)
		}
		return nil
	})
	crd := widgetCRD()
	if err := env.Client.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, crd) })
	want = []string{"apps/v1/deployments", "e2e.kpatch.dev/v1/widgets"}
	eventually(t, 90*time.Second, func() error {
		got, err := rulesOf(o.name)
		if err != nil || !reflect.DeepEqual(got, want) {
			return fmt.Errorf("rules %v, %v; want %v", got, err, want)
		}
		return nil
	})
	eventually(t, 30*time.Second, func() error {
		w := widget("rules-e2e", "small")
		if err := env.Client.Create(ctx, w, client.DryRunAll); err != nil {
			return err
		}
		if size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size"); size != 3 {
			return fmt.Errorf("the Widget's spec.size is %d, want 3", size)
		}
		return nil
	})
}
