package status

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

// reportsClient serves the PolicyReports of objs.
func reportsClient(objs ...map[string]any) *fake.FakeDynamicClient {
	list := make([]runtime.Object, len(objs))
	for i, o := range objs {
		list[i] = &unstructured.Unstructured{Object: o}
	}
	return fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{policyReports: "PolicyReportList"}, list...)
}

// inNamespace is report moved to namespace ns.
func inNamespace(report map[string]any, ns string) map[string]any {
	out := runtime.DeepCopyJSON(report)
	out["metadata"].(map[string]any)["namespace"] = ns
	return out
}

// TestReadsTheReports: -n reads the namespace's report, -A every
// namespace's kpatch report, sorted; without one, or without the CRD,
// the error says so and what to do.
func TestReadsTheReports(t *testing.T) {
	report := policyReport(t, shopObjects, shopChanges, 0)
	other := inNamespace(report, "aaa")
	foreign := inNamespace(report, "bbb")
	foreign["metadata"].(map[string]any)["name"] = "kyverno-report"
	c := reportsClient(report, other, foreign)
	ctx := context.Background()
	st, err := readReports(ctx, c, "shop")
	if err != nil || len(st.Namespaces) != 1 || st.Namespaces[0].Namespace != "shop" || len(st.Namespaces[0].Objects) != 2 {
		t.Fatalf("-n shop: %v, %+v", err, st)
	}
	st, err = readReports(ctx, c, "")
	if err != nil || len(st.Namespaces) != 2 || st.Namespaces[0].Namespace != "aaa" || st.Namespaces[1].Namespace != "shop" {
		t.Fatalf("-A: %v, %+v: want aaa and shop", err, st)
	}
	if _, err := readReports(ctx, c, "empty"); !errors.Is(err, ErrNoReport) || !strings.Contains(err.Error(), `namespace "empty" has no drift report`) || !strings.Contains(err.Error(), "--scan") {
		t.Errorf("no report in the namespace: %v", err)
	}
	if _, err := readReports(ctx, reportsClient(), ""); !errors.Is(err, ErrNoReport) || !strings.Contains(err.Error(), "--scan") {
		t.Errorf("no report at all: %v", err)
	}
	noCRD := reportsClient()
	noCRD.PrependReactor("*", "policyreports", func(a clienttesting.Action) (bool, runtime.Object, error) {
		// what the API server answers for a resource it does not serve
		return true, nil, apierrors.NewGenericServerResponse(404, a.GetVerb(), policyReports.GroupResource(), "", "404 page not found", 0, false)
	})
	for _, ns := range []string{"shop", ""} {
		if _, err := readReports(ctx, noCRD, ns); !errors.Is(err, ErrNoPolicyReports) || !strings.Contains(err.Error(), "--scan") {
			t.Errorf("%q without the CRD: %v", ns, err)
		}
	}
}
