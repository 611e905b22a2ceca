package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// notSynced is what a replica that has not synced answers.
const notSynced = "kpatch: the registry has not synced yet"

// TestUnsyncedReplicaLeavesItToFailurePolicy runs a replica as a
// ServiceAccount that may not read the registry yet, so that its registry
// cannot sync: it listens and answers 503 with why. The API server
// applies each webhook configuration's failurePolicy to that answer:
// under Ignore the Deployment and the registry ConfigMap are admitted
// (the Deployment unpatched, with no warning of the webhook: the webhook
// admitted nothing itself); under Fail both are refused with the
// webhook's message. Once the ServiceAccount may read, the registry syncs
// and the same create is patched.
func TestUnsyncedReplicaLeavesItToFailurePolicy(t *testing.T) {
	const name = "unsynced"
	ctx := context.Background()
	o := newOwnWebhook(t, name, []admissionregistrationv1.RuleWithOperations{deploymentRule()})
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: cluster.RegistryNamespace}}
	// only what its metrics endpoint needs to authenticate a scrape
	grants := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: cluster.RegistryNamespace}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
			{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}, Subjects: subjects},
	}
	readAll := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name + "-admin"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"}, Subjects: subjects}
	vwc := registryValidation(name, fmt.Sprintf("https://127.0.0.1:%d/validate-registry", o.port), name)
	for _, obj := range append(grants, vwc) {
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, obj := range append(grants, vwc, readAll) {
			_ = env.Client.Delete(ctx, obj)
		}
	})
	kubeconfig, _ := accountKubeconfig(t, name)
	o.namespace(t, name)
	o.launch(t, "--kubeconfig", kubeconfig, "--namespace-sources=false", "--path-token-secret=") // the replica may read no Secret: its paths are plain

	// straight to the replica: 503, with why
	eventually(t, time.Minute, func() error {
		code, body, err := postReview(o.wh.Port, "/mutate", reviewBytes(name, "direct"))
		if err == nil && (code != http.StatusServiceUnavailable || !strings.Contains(body, notSynced)) {
			err = fmt.Errorf("HTTP %d: %.300s", code, body)
		}
		return err
	})
	if err := ready(o.wh); err == nil {
		t.Fatal("the replica is ready: its registry synced")
	}

	c, warnings := warningClient(t)
	registryCM := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: cluster.RegistryNamespace, Labels: map[string]string{"kpatch.dev/registry": name}},
		Data: map[string]string{"f.kpatch": "[deployment.web]\nlabels.synced: \"yes\"\n"}}
	// the validating webhook, failurePolicy Fail: the edit is refused with why
	setPolicy(t, vwc, admissionregistrationv1.Fail)
	eventually(t, 20*time.Second, func() error {
		return refusedWhy(c.Create(ctx, registryCM.DeepCopy(), client.DryRunAll))
	})
	// Ignore: admitted, as when no replica answers
	setPolicy(t, vwc, admissionregistrationv1.Ignore)
	eventually(t, 20*time.Second, func() error { return c.Create(ctx, registryCM.DeepCopy()) })

	// the mutating webhook, failurePolicy Ignore: admitted unpatched, and
	// the webhook said nothing: the API server failed open
	d := deployment(name, "web")
	if err := c.Create(ctx, d, client.DryRunAll); err != nil {
		t.Fatal(err)
	}
	if said := strings.Join(warnings.take(), "\n"); d.Labels["synced"] != "" || strings.Contains(said, "kpatch") {
		t.Errorf("under Ignore: labels %v, warnings %q", d.Labels, said)
	}
	// Fail: refused, with why
	setPolicy(t, o.mwc, admissionregistrationv1.Fail)
	eventually(t, 20*time.Second, func() error {
		return refusedWhy(c.Create(ctx, deployment(name, "web"), client.DryRunAll))
	})
	if n := o.metric(t, `kpatch_admission_requests_rejected_total{reason="not-synced"}`); n < 4 {
		t.Errorf("rejected as not synced: %v, want at least the 4 answers above", n)
	}
	if n := o.metric(t, `kpatch_internal_errors_total{reason="not-synced"}`); n != 0 {
		t.Errorf("answered by --on-error: %v", n)
	}

	// may read: the registry syncs, and the same create is patched
	if err := env.Client.Create(ctx, readAll); err != nil {
		t.Fatal(err)
	}
	if err := o.wh.WaitReady(ctx); err != nil {
		o.wh = nil // stopped
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, func() error {
		d := deployment(name, "web")
		if err := c.Create(ctx, d, client.DryRunAll); err != nil {
			return err
		}
		if d.Labels["synced"] != "yes" {
			return fmt.Errorf("not patched: %v", d.Labels)
		}
		return nil
	})
}

// refusedWhy returns nil when err is the API server's refusal of a call
// that got a not-synced answer.
func refusedWhy(err error) error {
	if err == nil {
		return fmt.Errorf("admitted")
	}
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), notSynced) {
		return fmt.Errorf("refused otherwise: %w", err)
	}
	return nil
}

// setPolicy sets the failurePolicy of the only webhook of a webhook
// configuration.
func setPolicy(t *testing.T, config client.Object, policy admissionregistrationv1.FailurePolicyType) {
	t.Helper()
	ctx := context.Background()
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(config), config); err != nil {
		t.Fatal(err)
	}
	switch c := config.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		c.Webhooks[0].FailurePolicy = &policy
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		c.Webhooks[0].FailurePolicy = &policy
	}
	if err := env.Client.Update(ctx, config); err != nil {
		t.Fatal(err)
	}
}

// reviewBytes is the AdmissionReview of a CREATE of Deployment ns/name.
func reviewBytes(ns, name string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":%q,"operation":"CREATE",`+
		`"namespace":%q,"name":%q,"kind":{"group":"apps","version":"v1","kind":"Deployment"},`+
		`"object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%[3]q,"namespace":%[2]q}}}}`, name, ns, name)
}

// postReview posts body to path of the webhook on port and returns the
// HTTP status and the answer.
func postReview(port int, path string, body []byte) (int, string, error) {
	resp, err := env.HTTPClient().Post(fmt.Sprintf("https://127.0.0.1:%d%s?timeout=3s", port, path), "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}
