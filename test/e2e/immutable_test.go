package e2e

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// immutableSpecFile sets a field of a Pod's spec, which an UPDATE of a
// Pod may not change, and a label, which it may.
const immutableSpecFile = "[immutable-e2e/pod.*]\nspec.hostname: patched\nlabels.spec: \"yes\"\n"

// TestImmutableFieldsOnUpdate: on the real API server, under --strict,
// a file added after a Pod was created sets a field of the Pod's spec.
// A label UPDATE of that Pod (kubectl label) is admitted with the user's
// label and the other files' changes, the Pod's spec as it was: the file
// is left out whole (its label too), without a warning, and counted
// result="immutable". A Pod created after the file gets it, and a label
// UPDATE of that Pod keeps it.
func TestImmutableFieldsOnUpdate(t *testing.T) {
	const ns = "immutable-e2e"
	ctx := context.Background()
	var warnings warningRecorder
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = &warnings
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	podsRule := admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
	}
	o := newOwnWebhook(t, ns, []admissionregistrationv1.RuleWithOperations{podsRule})
	o.namespace(t, ns)
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}
	if err := c.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	files := map[string]string{"platform.kpatch": "[immutable-e2e/pod.*]\nlabels.platform: managed\n"}
	o.registry(t, cluster.RegistryNamespace, "immutable", files)
	o.start(t, "--strict")

	newPod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}},
		}}
	}
	// dryRun is what a CREATE of a Pod would store now.
	dryRun := func() (*corev1.Pod, error) {
		p := newPod("probe")
		return p, c.Create(ctx, p, client.DryRunAll)
	}
	eventually(t, 30*time.Second, func() error {
		p, err := dryRun()
		if err == nil && p.Labels["platform"] != "managed" {
			err = fmt.Errorf("labels %v, want platform managed", p.Labels)
		}
		return err
	})
	old := newPod("before-the-file")
	if err := c.Create(ctx, old); err != nil {
		t.Fatal(err)
	}

	files["spec.kpatch"] = immutableSpecFile
	o.registry(t, cluster.RegistryNamespace, "immutable", files)
	eventually(t, 30*time.Second, func() error {
		p, err := dryRun()
		if err == nil && p.Spec.Hostname != "patched" {
			err = fmt.Errorf("hostname %q, want patched", p.Spec.Hostname)
		}
		return err
	})

	// kubectl label of the Pod created before the file
	old.Labels["user"] = "label"
	if err := c.Update(ctx, old); err != nil {
		t.Fatalf("a label UPDATE of a Pod created before the file: %v", err)
	}
	if old.Labels["user"] != "label" || old.Labels["platform"] != "managed" {
		t.Errorf("labels %v, want the user's label and platform managed", old.Labels)
	}
	if old.Spec.Hostname != "" || old.Labels["spec"] != "" {
		t.Errorf("hostname %q, labels %v: the file that changes the spec applied to the UPDATE", old.Spec.Hostname, old.Labels)
	}
	if w := warnings.String(); w != "" {
		t.Errorf("warnings %q, want none", w)
	}
	if n := fileApplications(t, o, "immutable/spec.kpatch", "immutable"); n < 1 {
		t.Errorf("kpatch_file_applications_total{result=immutable} of spec.kpatch: %v, want at least 1", n)
	}

	// a Pod created after the file gets it, and keeps it on a label
	// UPDATE
	fresh := newPod("after-the-file")
	if err := c.Create(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if fresh.Spec.Hostname != "patched" || fresh.Labels["spec"] != "yes" {
		t.Fatalf("hostname %q, labels %v after CREATE, want the file's", fresh.Spec.Hostname, fresh.Labels)
	}
	fresh.Labels["user"] = "label"
	delete(fresh.Labels, "spec")
	if err := c.Update(ctx, fresh); err != nil {
		t.Fatalf("a label UPDATE of a Pod created after the file: %v", err)
	}
	if fresh.Spec.Hostname != "patched" || fresh.Labels["spec"] != "yes" || fresh.Labels["user"] != "label" {
		t.Errorf("hostname %q, labels %v after UPDATE, want the file's and the user's", fresh.Spec.Hostname, fresh.Labels)
	}
}

// fileApplications returns kpatch_file_applications_total of a file and
// a result.
func fileApplications(t *testing.T, o *ownWebhook, file, result string) float64 {
	t.Helper()
	ctx := context.Background()
	token, err := env.MetricsToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := env.Scrape(ctx, o.wh, token)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "kpatch_file_applications_total{") && strings.Contains(line, `file="`+file+`"`) && strings.Contains(line, `result="`+result+`"`) {
			n, err := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	return 0
}

// TestImmutableClaimOnUpdate: a PersistentVolumeClaim's storage request
// may change only on a bound claim whose storage class expands volumes;
// on the real API server (no controller binds the claim), a label UPDATE
// of a claim created before a file that sets its storage request is
// admitted with the label, the file left out; without the guard the API
// server would refuse the UPDATE (spec is immutable after creation).
func TestImmutableClaimOnUpdate(t *testing.T) {
	const ns = "immutable-pvc-e2e"
	ctx := context.Background()
	claimsRule := admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"persistentvolumeclaims"}},
	}
	o := newOwnWebhook(t, ns, []admissionregistrationv1.RuleWithOperations{claimsRule})
	o.namespace(t, ns)
	files := map[string]string{"label.kpatch": "[immutable-pvc-e2e/persistentvolumeclaim.*]\nlabels.platform: managed\n"}
	o.registry(t, cluster.RegistryNamespace, "immutable-pvc", files)
	o.start(t, "--strict")

	newClaim := func(name string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		}}
	}
	dryRun := func() (*corev1.PersistentVolumeClaim, error) {
		p := newClaim("probe")
		return p, env.Client.Create(ctx, p, client.DryRunAll)
	}
	eventually(t, 30*time.Second, func() error {
		p, err := dryRun()
		if err == nil && p.Labels["platform"] != "managed" {
			err = fmt.Errorf("labels %v, want platform managed", p.Labels)
		}
		return err
	})
	old := newClaim("before-the-file")
	if err := env.Client.Create(ctx, old); err != nil {
		t.Fatal(err)
	}
	files["storage.kpatch"] = "[immutable-pvc-e2e/persistentvolumeclaim.*]\nresources.requests.storage: 2Gi\n"
	o.registry(t, cluster.RegistryNamespace, "immutable-pvc", files)
	eventually(t, 30*time.Second, func() error {
		p, err := dryRun()
		if q := p.Spec.Resources.Requests[corev1.ResourceStorage]; err == nil && q.String() != "2Gi" {
			err = fmt.Errorf("storage request %s, want 2Gi", q.String())
		}
		return err
	})

	old.Labels["user"] = "label"
	if err := env.Client.Update(ctx, old); err != nil {
		t.Fatalf("a label UPDATE of a claim created before the file: %v", err)
	}
	if q := old.Spec.Resources.Requests[corev1.ResourceStorage]; old.Labels["user"] != "label" || old.Labels["platform"] != "managed" || q.String() != "1Gi" {
		t.Errorf("labels %v, storage request %s: want the user's label, platform managed and 1Gi", old.Labels, q.String())
	}
	if n := fileApplications(t, o, "immutable-pvc/storage.kpatch", "immutable"); n < 1 {
		t.Errorf("kpatch_file_applications_total{result=immutable} of storage.kpatch: %v, want at least 1", n)
	}
}
