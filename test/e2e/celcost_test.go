package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// costlyCondition builds a string of annotation a's size squared (4 GiB
// of 64 KiB) for a few thousand of the Kubernetes library's cost units:
// it once took the webhook's process down, and the admin's files with it.
const costlyCondition = "object.metadata.annotations['a'].replace('a', object.metadata.annotations['a']).size() > 0"

// TestCostlyConditionIsRefusedAndTheWebhookLives: a tenant's file whose
// condition's worst case exceeds the per-call limit does not compile (an
// Event on its ConfigMap says where, and /validate-registry refuses the
// edit that brings it); the tenant's Deployment carrying the 64 KiB
// annotation the condition would have squared is admitted, and a
// Deployment of another namespace still gets the admin's file.
func TestCostlyConditionIsRefusedAndTheWebhookLives(t *testing.T) {
	ctx := context.Background()
	o := newOwnWebhook(t, "celcost-e2e", []admissionregistrationv1.RuleWithOperations{deploymentRule()})
	o.namespace(t, "celcost-tenant")
	o.namespace(t, "celcost-other")
	markTenant(t, "celcost-tenant", "enabled")
	costly := map[string]string{"costly.kpatch": "[deployment.*]\n# kpatch:when: " + costlyCondition + "\nlabels.costly: \"yes\"\n"}
	o.registry(t, "celcost-tenant", "mine", costly)
	o.registry(t, cluster.RegistryNamespace, "celcost-admin", map[string]string{"admin.kpatch": "[deployment.*]\nlabels.admin: patched\n"})
	o.start(t, "--tenant-registries")

	// the registry reports the file, at the condition's replace
	const where = "celcost-tenant/mine/costly.kpatch:2:49: when: estimated worst-case cost "
	eventually(t, 30*time.Second, func() error {
		notes, err := eventOn("celcost-tenant", "mine", "PatchCompileFailed")
		if err != nil {
			return err
		}
		for _, n := range notes {
			if strings.Contains(n, where) && strings.Contains(n, "exceeds the per-call limit 1000000") {
				return nil
			}
		}
		return fmt.Errorf("no PatchCompileFailed Event on celcost-tenant/mine at %q: %q", where, notes)
	})

	// with the registry's validation installed, the edit is refused
	vwc := registryValidation("kpatch", fmt.Sprintf("https://127.0.0.1:%d/validate-registry", o.port), "true")
	vwc.Name = o.name
	vwc.Webhooks[0].NamespaceSelector = nil // tenants: every namespace
	vwc.Webhooks[0].ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kpatch.dev/registry": o.name}}
	if err := env.Client.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, vwc) })
	edit := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "again", Namespace: "celcost-tenant", Labels: map[string]string{"kpatch.dev/registry": o.name}}, Data: costly}
	eventually(t, 20*time.Second, func() error {
		err := env.Client.Create(ctx, edit.DeepCopy(), client.DryRunAll)
		if err == nil {
			return fmt.Errorf("the costly file was accepted")
		}
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "celcost-tenant/again/costly.kpatch:2:49: when: estimated worst-case cost ") {
			return fmt.Errorf("refused with %v", err)
		}
		return nil
	})

	// the annotation the condition would have squared: admitted, patched
	// by the admin's file
	big := deployment("celcost-tenant", "big")
	big.Annotations = map[string]string{"a": strings.Repeat("a", 64<<10)}
	if err := dryRunCreate(big); err != nil {
		t.Fatal(err)
	}
	if big.Labels["admin"] != "patched" || big.Labels["costly"] != "" {
		t.Errorf("the tenant's Deployment: labels %v; want admin=patched only", big.Labels)
	}
	other := deployment("celcost-other", "web")
	if err := dryRunCreate(other); err != nil {
		t.Fatal(err)
	}
	if other.Labels["admin"] != "patched" {
		t.Errorf("another namespace's Deployment: labels %v; want the admin's", other.Labels)
	}
	if logs := o.logs.String(); strings.Contains(logs, "fatal error") || strings.Contains(logs, "panic") {
		t.Errorf("the webhook's logs:\n%s", logs)
	}
}
