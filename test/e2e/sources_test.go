package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// srcFile copies the region of the source ConfigMap srcbound-settings of
// the Deployment's namespace into an annotation.
const srcFile = `replacements:
- source: {kind: ConfigMap, name: srcbound-settings, fieldPath: data.region}
  targets:
  - select: {kind: Deployment, namespace: srcbound-late}
    fieldPaths: [metadata.annotations.region]
    options: {create: true}
`

// TestSourcesKeptForOptedInNamespaces: a source ConfigMap created while
// its namespace is not opted in is dropped on arrival, and read when the
// namespace opts in; past --max-source-configmaps, the namespace keeps
// its first ones by name, the one refused gets a SourceConfigMapRefused
// Event and is counted, and it comes back when a kept one goes.
func TestSourcesKeptForOptedInNamespaces(t *testing.T) {
	ctx := context.Background()
	o := newOwnWebhook(t, "srcbound", []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
	}})
	const ns = "srcbound-late"
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	if err := env.Client.Create(ctx, nsObj); err != nil {
		t.Fatal(err)
	}
	source := func(name, region string) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"kpatch.dev/source": "true"}},
			Data: map[string]string{"region": region}}
		if err := env.Client.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
		return cm
	}
	source("srcbound-settings", "late")
	o.registry(t, cluster.RegistryNamespace, "srcbound-files", map[string]string{"region.yaml": srcFile})
	o.start(t, "--namespace-selector=srcbound=on", "--max-source-configmaps=2")
	region := func(want string) func() error {
		return func() error {
			d := deployment(ns, "web")
			if err := dryRunCreate(d); err != nil {
				return err
			}
			if got := d.Annotations["region"]; got != want {
				return fmt.Errorf("region %q, want %q", got, want)
			}
			return nil
		}
	}

	// opting in: the namespace's ConfigMaps are read
	nsObj.Labels = map[string]string{"srcbound": "on"}
	if err := env.Client.Update(ctx, nsObj); err != nil {
		t.Fatal(err)
	}
	took := eventually(t, 10*time.Second, region("late"))
	t.Logf("the ConfigMap of a namespace that opted in was read after %s", took)

	// two ConfigMaps that sort first: srcbound-settings is the third
	first := source("a-first", "x")
	source("b-second", "y")
	eventually(t, 10*time.Second, region(""))
	eventually(t, 10*time.Second, func() error {
		var list eventsv1.EventList
		if err := env.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "srcbound-settings" && e.Reason == "SourceConfigMapRefused" && strings.Contains(e.Note, "--max-source-configmaps") {
				return nil
			}
		}
		return fmt.Errorf("no SourceConfigMapRefused Event on srcbound-settings among %d", len(list.Items))
	})
	if n := o.metric(t, `kpatch_source_configmaps_refused_total{reason="count"}`); n < 1 {
		t.Errorf("kpatch_source_configmaps_refused_total{reason=\"count\"} = %v", n)
	}

	// a kept one goes: the next by name comes in
	if err := env.Client.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, region("late"))
}

// metric returns the value of the series line (name{labels}) of the
// webhook's /metrics; -1 when absent.
func (o *ownWebhook) metric(t *testing.T, series string) float64 {
	t.Helper()
	n, err := env.Metric(context.Background(), o.wh, series)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
