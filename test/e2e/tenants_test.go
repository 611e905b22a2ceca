package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"kpatch.dev/kpatch/test/cluster"
)

func deploymentRule() admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
	}
}

// TestTenantCannotPatchAnotherNamespace: with --tenant-registries, a
// registry ConfigMap of namespace tenant-a (marked as a tenant) patches tenant-a's Deployments
// and never tenant-b's, whether its target leaves the namespace out or
// names tenant-b (that file does not compile: an Event on the ConfigMap
// says so); the registry namespace's file applies after the tenant's and
// wins.
func TestTenantCannotPatchAnotherNamespace(t *testing.T) {
	o := newOwnWebhook(t, "tenants-e2e", []admissionregistrationv1.RuleWithOperations{deploymentRule()})
	o.namespace(t, "tenant-a")
	o.namespace(t, "tenant-b")
	markTenant(t, "tenant-a", "enabled")
	o.registry(t, "tenant-a", "mine", map[string]string{
		"own.kpatch":   "[deployment.*]\nlabels.tenant: tenant-a\nannotations.owner: tenant-a\n",
		"steal.kpatch": "[tenant-b/deployment.*]\nlabels.stolen: \"yes\"\n",
	})
	o.registry(t, cluster.RegistryNamespace, "admin", map[string]string{
		"last-word.kpatch": "[tenant-a/deployment.*]\nannotations.owner: admin\n",
	})
	o.start(t, "--tenant-registries")

	eventually(t, 30*time.Second, func() error {
		d := deployment("tenant-a", "web")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if d.Labels["tenant"] != "tenant-a" || d.Annotations["owner"] != "admin" {
			return fmt.Errorf("tenant-a's Deployment: labels %v, annotations %v; want tenant=tenant-a and owner=admin", d.Labels, d.Annotations)
		}
		return nil
	})
	other := deployment("tenant-b", "web")
	if err := dryRunCreate(other); err != nil {
		t.Fatal(err)
	}
	if len(other.Labels) != 0 || len(other.Annotations) != 0 {
		t.Errorf("a tenant patched another namespace's Deployment: labels %v, annotations %v", other.Labels, other.Annotations)
	}
	eventually(t, 30*time.Second, func() error {
		notes, err := eventOn("tenant-a", "mine", "PatchCompileFailed")
		if err != nil {
			return err
		}
		for _, n := range notes {
			if strings.Contains(n, `tenant-a/mine/steal.kpatch:1:1: the target names namespace "tenant-b"`) {
				return nil
			}
		}
		return fmt.Errorf("no PatchCompileFailed Event naming tenant-b on tenant-a/mine: %q", notes)
	})
}
