package e2e

import (
	"fmt"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"

	"kpatch.dev/kpatch/test/cluster"
)

// TestTenantsCannotSpendTheAdminsBudget: eleven conditioned files of a
// tenant spend the tenant's CEL budget of an object (--condition-budget),
// and the admin's conditioned guardrail still applies to it: each owner
// has a budget of its own, the admin's conditions are evaluated first.
// With one budget shared, the tenant's files spent it, the guardrail was
// left out and the Deployment kept its 50 replicas.
func TestTenantsCannotSpendTheAdminsBudget(t *testing.T) {
	o := newOwnWebhook(t, "tenant-budget-e2e", []admissionregistrationv1.RuleWithOperations{deploymentRule()})
	o.namespace(t, "spender")
	markTenant(t, "spender", "enabled")
	const costly = "object.metadata.name.startsWith('web') && object.metadata.namespace.startsWith('spender') && object.spec.replicas > 0"
	files := map[string]string{}
	for i := range 11 {
		files[fmt.Sprintf("f%02d.kpatch", i)] = fmt.Sprintf("# kpatch:when: %s\n[deployment.*]\nlabels.f%02d: spent\n", costly, i)
	}
	o.registry(t, "spender", "spend", files)
	o.registry(t, cluster.RegistryNamespace, "guardrail", map[string]string{
		"replicas.kpatch": "# kpatch:when: object.spec.replicas > 1\n[spender/deployment.*]\nreplicas: 1\n",
	})
	o.start(t, "--tenant-registries", "--condition-budget=30")

	eventually(t, 30*time.Second, func() error {
		d := deployment("spender", "web")
		d.Spec.Replicas = ptr.To[int32](50)
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if d.Labels["f00"] != "spent" {
			return fmt.Errorf("the tenant's first file did not apply: labels %v", d.Labels)
		}
		if len(d.Labels) > 10 {
			return fmt.Errorf("all the tenant's files applied (labels %v): the budget was not spent", d.Labels)
		}
		if got := *d.Spec.Replicas; got != 1 {
			return fmt.Errorf("replicas %d, want 1: the tenant's files spent the admin's budget", got)
		}
		return nil
	})
}
