package admission

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestSyncKeepsFileSeriesToTheRegistry: every file of the registry has
// its kpatch_file_applications_total series from the first sync on, and a
// file that leaves the registry takes its series with it.
func TestSyncKeepsFileSeriesToTheRegistry(t *testing.T) {
	ctx := context.Background()
	cm := configMap("reg", map[string]string{"a.kpatch": "[deployment.*]\nreplicas: 1\n", "b.kpatch": "[pod.*]\nlabels.a: b\n"})
	cm.Labels = map[string]string{"kpatch.dev/registry": "true"}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(&cm).Build()
	w := &Watcher{Client: c, Namespace: "kpatch-system", Selector: labels.SelectorFromSet(cm.Labels),
		Metrics: NewMetrics(prometheus.NewRegistry()), Log: logr.Discard()}
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(w.Metrics.FileApplications); n != 6 {
		t.Errorf("%d series, want 3 results of 2 files", n)
	}
	delete(cm.Data, "b.kpatch")
	if err := c.Update(ctx, &cm); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(w.Metrics.FileApplications); n != 3 {
		t.Errorf("%d series after b.kpatch left, want 3", n)
	}
}
