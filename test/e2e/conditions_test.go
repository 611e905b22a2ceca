package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// conditionFiles are conditioned on the object, the Namespace and the
// request's user; marker.kpatch, unconditioned, shows that the webhook
// patched an object.
var conditionFiles = map[string]string{
	"marker.kpatch": "[deployment.*]\nlabels.conditions: seen\n",
	"big.kpatch":    "# kpatch:when: object.spec.replicas > 2\n[deployment.*]\nlabels.size: big\n",
	"gold.kpatch":   "[deployment.*]\n# kpatch:when: has(object.metadata.labels) && object.metadata.labels.tier == 'gold'\nannotations[example.com/tier]: gold\n",
	"people.kpatch": "# kpatch:when: !request.userInfo.username.startsWith('system:serviceaccount:')\n[deployment.*]\nlabels.by: person\n",
	"prod.kpatch":   "# kpatch:when: namespaceObject != null && has(namespaceObject.metadata.labels.env) && namespaceObject.metadata.labels.env == 'prod'\n[deployment.*]\nlabels.env: prod\n",
}

// TestConditionsAtAdmission: on the real API server a conditioned file
// applies only where its condition holds: on the object
// (spec.replicas > 2, a label), on its Namespace's labels, and on the
// request's user (a service account's request is left alone).
func TestConditionsAtAdmission(t *testing.T) {
	const prod, lab = "when-prod", "when-lab"
	o := newOwnWebhook(t, "when-e2e", []admissionregistrationv1.RuleWithOperations{deploymentRule()})
	o.namespace(t, prod)
	o.namespace(t, lab)
	ctx := context.Background()
	var ns corev1.Namespace
	if err := env.Client.Get(ctx, client.ObjectKey{Name: prod}, &ns); err != nil {
		t.Fatal(err)
	}
	ns.Labels["env"] = "prod"
	if err := env.Client.Update(ctx, &ns); err != nil {
		t.Fatal(err)
	}
	o.registry(t, cluster.RegistryNamespace, "when", conditionFiles)
	o.start(t)

	// the webhook serves the registry and knows the Namespace's label
	eventually(t, 30*time.Second, func() error {
		p := deployment(prod, "probe")
		if err := env.Client.Create(ctx, p, client.DryRunAll); err != nil {
			return err
		}
		if p.Labels["conditions"] != "seen" || p.Labels["env"] != "prod" {
			return fmt.Errorf("not patched yet: labels %v", p.Labels)
		}
		return nil
	})

	// a service account of the cluster (impersonated, with the rights of
	// system:masters) that creates Deployments
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + lab + ":deployer", Groups: []string{"system:masters"}}
	robot, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}

	big := deployment(prod, "big")
	big.Spec.Replicas = ptr.To[int32](3)
	gold := deployment(lab, "gold")
	gold.Labels = map[string]string{"tier": "gold"}
	cases := []struct {
		name   string
		c      client.Client
		d      *appsv1.Deployment
		labels map[string]string
		tier   string
	}{
		{"3 replicas in prod, by a person", env.Client, big, map[string]string{"conditions": "seen", "size": "big", "by": "person", "env": "prod"}, ""},
		{"1 replica labelled gold in lab, by a service account", robot, gold, map[string]string{"conditions": "seen", "tier": "gold"}, "gold"},
	}
	for _, tc := range cases {
		if err := tc.c.Create(ctx, tc.d); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var stored appsv1.Deployment
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(tc.d), &stored); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(stored.Labels) != fmt.Sprint(tc.labels) {
			t.Errorf("%s: labels %v, want %v", tc.name, stored.Labels, tc.labels)
		}
		if got := stored.Annotations["example.com/tier"]; got != tc.tier {
			t.Errorf("%s: annotation example.com/tier %q, want %q", tc.name, got, tc.tier)
		}
	}
}
