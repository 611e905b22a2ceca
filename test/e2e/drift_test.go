package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// policyReportCRD is a minimal wgpolicyk8s.io/v1alpha2 PolicyReport CRD:
// its kind, served and stored, any content.
func policyReportCRD() *unstructured.Unstructured {
	return openCRD("wgpolicyk8s.io", "v1alpha2", "PolicyReport", "policyreports")
}

// driftReport returns the rules of the results of the namespace's
// PolicyReport kpatch-drift, and false when there is none.
func driftReport(ctx context.Context, ns string) ([]string, bool, error) {
	r := &unstructured.Unstructured{}
	r.SetAPIVersion("wgpolicyk8s.io/v1alpha2")
	r.SetKind("PolicyReport")
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "kpatch-drift"}, r)
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	results, _, _ := unstructured.NestedSlice(r.Object, "results")
	var rules []string
	for _, res := range results {
		m, _ := res.(map[string]any)
		rule, _ := m["rule"].(string)
		rules = append(rules, rule)
	}
	return rules, true, nil
}

// TestDriftReportedAndReconciled: a Deployment and a Pod created before
// their files exist are reported stale once the files are added (the
// metric, a PolicyReport, an Event each) and are not changed; with
// --reconcile the Deployment, whose file is marked reconcile, gets the
// change through an UPDATE and leaves the report, the Pod, whose file
// changes its containers, stays reported and is never updated; removing
// the files clears the report.
func TestDriftReportedAndReconciled(t *testing.T) {
	const ns = "drift-e2e"
	ctx := context.Background()
	crd := policyReportCRD()
	if err := env.Client.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, crd) })
	ops := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	o := newOwnWebhook(t, ns, []admissionregistrationv1.RuleWithOperations{
		{Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}},
		{Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}},
	})
	o.namespace(t, ns)
	if err := env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	web := deployment(ns, "web")
	solo := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "solo", Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}}}}
	for _, obj := range []client.Object{web, solo} {
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	drift := []string{"--drift-interval=2s", "--namespace-selector=" + ns + "=on", "--drift-reports=policyreport",
		"--leader-elect", "--leader-election-id=" + ns}
	o.start(t, drift...)
	files := map[string]string{
		"web.kpatch": "# kpatch:reconcile: true\n[deployment.web.containers.name=app]\nimage: nginx:1.27\n",
		"pod.kpatch": "# kpatch:reconcile: true\n[pod.solo.containers.name=app]\nresources.requests.cpu: 250m\n",
	}
	o.registry(t, cluster.RegistryNamespace, "drift", files)

	webSeries := `kpatch_drift_objects{file="drift/web.kpatch",kind="Deployment"}`
	podSeries := `kpatch_drift_objects{file="drift/pod.kpatch",kind="Pod"}`
	reported := eventually(t, 30*time.Second, func() error {
		for _, series := range []string{webSeries, podSeries} {
			if n, err := env.Metric(ctx, o.wh, series); err != nil || n != 1 {
				return fmt.Errorf("%s: %v %v, want 1", series, n, err)
			}
		}
		rules, ok, err := driftReport(ctx, ns)
		if err == nil && (!ok || strings.Join(rules, " ") != "drift/web.kpatch drift/pod.kpatch") {
			err = fmt.Errorf("PolicyReport %v %v, want the results of web.kpatch and pod.kpatch", ok, rules)
		}
		if err != nil {
			return err
		}
		for _, name := range []string{"web", "solo"} {
			if notes, err := staleEvents(ctx, ns, name); err != nil || len(notes) == 0 {
				return fmt.Errorf("no Stale Event on %s: %v", name, err)
			}
		}
		return nil
	})
	t.Logf("reported stale %s after the files were added", reported)

	// a later scan, without --reconcile, changes neither
	afterScans(t, ctx, o, 2)
	stored := &appsv1.Deployment{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(web), stored); err != nil {
		t.Fatal(err)
	}
	if stored.ResourceVersion != web.ResourceVersion || stored.Spec.Template.Spec.Containers[0].Image != "nginx:1.25" {
		t.Fatalf("without --reconcile the Deployment changed: resourceVersion %s (created %s), image %s",
			stored.ResourceVersion, web.ResourceVersion, stored.Spec.Template.Spec.Containers[0].Image)
	}
	if notes, err := staleEvents(ctx, ns, "web"); err != nil || len(notes) != 1 {
		t.Errorf("Stale Events on web after several scans of one registry version: %d %v, want 1", len(notes), err)
	}

	o.stop()
	o.start(t, append(drift, "--reconcile", "--reconcile-rate=5")...)
	reconciled := eventually(t, 30*time.Second, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(web), stored); err != nil {
			return err
		}
		if img := stored.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.27" || stored.Annotations["kpatch.dev/reconciled"] == "" {
			return fmt.Errorf("image %s, annotations %v", img, stored.Annotations)
		}
		return nil
	})
	t.Logf("reconciled %s after the webhook started with --reconcile", reconciled)
	if !updatedBy(stored.ManagedFields, "kpatch-webhook") {
		t.Errorf("the reconcile is no UPDATE of the webhook's: managedFields %+v", stored.ManagedFields)
	}
	eventually(t, 30*time.Second, func() error {
		if n, err := env.Metric(ctx, o.wh, webSeries); err != nil || n != -1 {
			return fmt.Errorf("%s: %v %v, want no series", webSeries, n, err)
		}
		rules, ok, err := driftReport(ctx, ns)
		if err == nil && strings.Join(rules, " ") != "drift/pod.kpatch" {
			err = fmt.Errorf("PolicyReport %v %v, want the result of pod.kpatch only", ok, rules)
		}
		return err
	})
	if n, err := env.Metric(ctx, o.wh, `kpatch_reconciled_total{kind="Deployment",result="reconciled"}`); err != nil || n != 1 {
		t.Errorf("kpatch_reconciled_total of the Deployment: %v %v, want 1", n, err)
	}
	pod := &corev1.Pod{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(solo), pod); err != nil {
		t.Fatal(err)
	}
	if pod.ResourceVersion != solo.ResourceVersion || pod.Annotations["kpatch.dev/reconciled"] != "" {
		t.Errorf("the Pod was updated: resourceVersion %s (created %s), annotations %v", pod.ResourceVersion, solo.ResourceVersion, pod.Annotations)
	}

	o.registry(t, cluster.RegistryNamespace, "drift", map[string]string{})
	eventually(t, 30*time.Second, func() error {
		if n, err := env.Metric(ctx, o.wh, podSeries); err != nil || n != -1 {
			return fmt.Errorf("%s: %v %v, want no series", podSeries, n, err)
		}
		if rules, ok, err := driftReport(ctx, ns); err != nil || ok {
			return fmt.Errorf("PolicyReport %v %v, want none", rules, err)
		}
		return nil
	})
}

// staleEvents returns the notes of the Events Stale on the object name.
func staleEvents(ctx context.Context, ns, name string) ([]string, error) {
	var list eventsv1.EventList
	if err := env.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	var notes []string
	for _, e := range list.Items {
		if e.Regarding.Name == name && e.Reason == "Stale" {
			notes = append(notes, e.Note)
		}
	}
	return notes, nil
}

// afterScans waits until n scans of the webhook have started since it
// was called: kpatch_drift_last_scan_timestamp_seconds moved n times.
func afterScans(t *testing.T, ctx context.Context, o *ownWebhook, n int) {
	t.Helper()
	const series = "kpatch_drift_last_scan_timestamp_seconds"
	last, err := env.Metric(ctx, o.wh, series)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		eventually(t, 30*time.Second, func() error {
			now, err := env.Metric(ctx, o.wh, series)
			if err == nil && now == last {
				err = fmt.Errorf("no scan since %v", last)
			}
			if err == nil {
				last = now
			}
			return err
		})
	}
}

// updatedBy reports whether manager wrote fields of the object with an
// UPDATE (a patch is one).
func updatedBy(fields []metav1.ManagedFieldsEntry, manager string) bool {
	for _, f := range fields {
		if f.Manager == manager && f.Operation == metav1.ManagedFieldsOperationUpdate {
			return true
		}
	}
	return false
}
