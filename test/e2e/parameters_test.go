package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// valuesNamespace creates an opted-in Namespace with annotations.
func valuesNamespace(t *testing.T, name string, annotations map[string]string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations,
		Labels: map[string]string{cluster.InjectLabel: "enabled"}}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
}

// tierOf creates (dry run) the Deployment tiered in ns through c and
// returns its labels tier and always.
func tierOf(c client.Client, ns string) (tier, always string, err error) {
	d := deployment(ns, "tiered")
	if err := c.Create(context.Background(), d, client.DryRunAll); err != nil {
		return "", "", err
	}
	return d.Labels["tier"], d.Labels["always"], nil
}

// TestNamespaceValues: one file, one parameter, two Namespaces with
// different annotations values.kpatch.dev/tier get different results; an
// invalid value leaves that file out with a warning naming the
// annotation; an annotation change counts for the next object.
func TestNamespaceValues(t *testing.T) {
	registry(t, "params", map[string]string{
		"parameters.yaml": "parameters:\n- {name: tier, type: string, enum: [gold, silver, bronze], default: bronze}\n",
		"values.yaml":     "values:\n  tier: silver\n",
		"tier.kpatch":     "[deployment.tiered]\nlabels.tier: ${values.tier}\n",
		"always.kpatch":   "[deployment.tiered]\nlabels.always: \"yes\"\n",
	})
	valuesNamespace(t, "values-gold", map[string]string{"values.kpatch.dev/tier": "gold"})
	valuesNamespace(t, "values-plain", nil)
	valuesNamespace(t, "values-bad", map[string]string{"values.kpatch.dev/tier": "platinum"})
	var warnings warningRecorder
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = &warnings
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	want := func(ns, tier string) func() error {
		return func() error {
			got, always, err := tierOf(c, ns)
			if err == nil && (got != tier || always != "yes") {
				err = fmt.Errorf("%s: tier %q always %q, want tier %q", ns, got, always, tier)
			}
			return err
		}
	}
	eventually(t, 10*time.Second, want("values-gold", "gold")) // the registry syncs
	if err := want("values-plain", "silver")(); err != nil {
		t.Error(err)
	}
	if err := want("values-bad", "")(); err != nil {
		t.Error(err)
	}
	if w := warnings.String(); !strings.Contains(w, "params/tier.kpatch: not applied: namespace values-bad annotation values.kpatch.dev/tier") ||
		!strings.Contains(w, `"platinum" is not one of`) {
		t.Errorf("warnings %q", w)
	}
	setTier(t, "values-gold", "silver")
	eventually(t, 2*time.Second, want("values-gold", "silver"))
}

// setTier changes the annotation values.kpatch.dev/tier of a Namespace.
func setTier(t *testing.T, name, tier string) {
	t.Helper()
	var ns corev1.Namespace
	ctx := context.Background()
	if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, &ns); err != nil {
		t.Fatal(err)
	}
	ns.Annotations["values.kpatch.dev/tier"] = tier
	if err := env.Client.Update(ctx, &ns); err != nil {
		t.Fatal(err)
	}
}
