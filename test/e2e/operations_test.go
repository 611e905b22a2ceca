package e2e

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// operationsFiles: one file on every operation (the default), one on
// CREATE only, for Deployments; a CREATE-only file is all that targets
// ConfigMaps.
var operationsFiles = map[string]string{
	"platform.kpatch": "[operations-e2e/deployment.*]\nlabels.platform: managed\n",
	"tier.kpatch":     "# kpatch:operations: CREATE\n[operations-e2e/deployment.*]\nlabels.tier: bronze\n",
	"owner.kpatch":    "# kpatch:operations: CREATE\n[operations-e2e/configmap.*]\nlabels.owner: platform\n",
}

// TestOperationsAtAdmission: on the real API server, with the webhook's
// default operations (CREATE, UPDATE) and managed rules, the rules take
// UPDATE for Deployments (a file applies on it) and not for ConfigMaps
// (their only file is CREATE-only). An UPDATE that drops a patched label
// gets it back, while the field of a CREATE-only file that the user
// changed stays changed; an UPDATE of a Deployment being deleted passes
// unpatched, and removing its finalizer deletes it. That a set-if-absent
// entry leaves a field a controller changed alone on an UPDATE is
// TestSetIfAbsentAtAdmission's.
func TestOperationsAtAdmission(t *testing.T) {
	const ns = "operations-e2e"
	ctx := context.Background()
	c := env.Client
	o := newOwnWebhook(t, ns, staticRules())
	o.namespace(t, ns)
	o.registry(t, cluster.RegistryNamespace, "operations", operationsFiles)
	o.start(t, "--manage-webhook-rules", "--webhook-configuration-name", o.name, "--leader-elect", "--leader-election-id", o.name)

	both := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	createOnly := both[:1]
	want := map[string][]admissionregistrationv1.OperationType{"/v1/configmaps": createOnly, "apps/v1/deployments": both}
	eventually(t, 60*time.Second, func() error {
		got, err := ruleOperations(o.name)
		if err != nil || !reflect.DeepEqual(got, want) {
			return fmt.Errorf("rules %v, %v; want %v", got, err, want)
		}
		return nil
	})

	d := deployment(ns, "web")
	d.Finalizers = []string{"e2e.kpatch.dev/hold"}
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	get(t, d)
	if d.Labels["platform"] != "managed" || d.Labels["tier"] != "bronze" {
		t.Fatalf("labels %v after CREATE, want platform managed and tier bronze", d.Labels)
	}

	// a sync of a manifest that drops the platform label and sets its
	// own tier
	delete(d.Labels, "platform")
	d.Labels["tier"] = "gold"
	if err := c.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	get(t, d)
	if d.Labels["platform"] != "managed" {
		t.Errorf("labels %v after UPDATE: the dropped platform label did not come back", d.Labels)
	}
	if d.Labels["tier"] != "gold" {
		t.Errorf("labels %v after UPDATE: the CREATE-only file applied again (tier %q, want the user's gold)", d.Labels, d.Labels["tier"])
	}

	// being deleted: an UPDATE passes as it is, and the finalizer's
	// removal is not held up
	if err := c.Delete(ctx, d); err != nil {
		t.Fatal(err)
	}
	get(t, d)
	if d.DeletionTimestamp == nil {
		t.Fatal("the Deployment is not being deleted")
	}
	delete(d.Labels, "platform")
	if err := c.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	get(t, d)
	if _, ok := d.Labels["platform"]; ok {
		t.Errorf("labels %v: the UPDATE of a Deployment being deleted was patched", d.Labels)
	}
	d.Finalizers = nil
	if err := c.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, func() error {
		err := c.Get(ctx, client.ObjectKeyFromObject(d), &appsv1.Deployment{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("the Deployment is still there: %v", err)
	})

	// ConfigMaps: the CREATE-only file applies on CREATE; an UPDATE does
	// not even reach the webhook
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: ns}, Data: map[string]string{"a": "b"}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if cm.Labels["owner"] != "platform" {
		t.Fatalf("ConfigMap labels %v after CREATE, want owner platform", cm.Labels)
	}
	before := o.requests(t)
	delete(cm.Labels, "owner")
	if err := c.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if _, ok := cm.Labels["owner"]; ok {
		t.Errorf("ConfigMap labels %v after UPDATE: the CREATE-only file applied again", cm.Labels)
	}
	if n := o.requests(t) - before; n != 0 {
		t.Errorf("%d ConfigMap UPDATEs reached the webhook; its rules should take CREATE only", n)
	}
}

// get reads d again.
func get(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(d), d); err != nil {
		t.Fatal(err)
	}
}

// ruleOperations returns the operations of each group/version/resource
// of the configuration's rules.
func ruleOperations(name string) (map[string][]admissionregistrationv1.OperationType, error) {
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, &mwc); err != nil {
		return nil, err
	}
	out := map[string][]admissionregistrationv1.OperationType{}
	for _, r := range mwc.Webhooks[0].Rules {
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				for _, res := range r.Resources {
					out[g+"/"+v+"/"+res] = r.Operations
				}
			}
		}
	}
	return out, nil
}
