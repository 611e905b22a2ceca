package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// TestSelfManagedTLS runs a second webhook that issues its own CA and
// serving certificate (cert-manager's pkg/server/tls) and writes the CA
// into a webhook configuration that starts without one; the API server
// then calls it successfully, with failurePolicy Fail.
func TestSelfManagedTLS(t *testing.T) {
	ctx := context.Background()
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("https://localhost:%d/mutate", port)
	sideEffects := admissionregistrationv1.SideEffectClassNone
	fail := admissionregistrationv1.Fail
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "kpatch-self-managed"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "self.kpatch.dev",
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &sideEffects,
			FailurePolicy:           &fail,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kpatch.dev/self-tls": "on"}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
			}},
		}},
	}
	if err := env.Client.Create(ctx, mwc); err != nil {
		t.Fatal(err)
	}
	defer env.Client.Delete(ctx, mwc)
	registry(t, "selftls", map[string]string{"tls.kpatch": "[selftls/deployment.*]\nlabels.tls: self-managed\n"})

	bin, err := env.BuildWebhook()
	if err != nil {
		t.Fatal(err)
	}
	var selfLogs lockedBuffer
	wh, err := env.StartWebhook(ctx, bin, port, &selfLogs,
		"--tls-mode", "self-managed", "--tls-secret-name", "kpatch-self-ca",
		"--tls-dns-names", "localhost", "--webhook-configuration-name", mwc.Name)
	if err != nil {
		t.Fatalf("%v\n%s", err, selfLogs.String())
	}
	defer wh.Stop()

	eventually(t, 30*time.Second, func() error {
		var got admissionregistrationv1.MutatingWebhookConfiguration
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(mwc), &got); err != nil {
			return err
		}
		if len(got.Webhooks[0].ClientConfig.CABundle) == 0 {
			return fmt.Errorf("no caBundle yet")
		}
		return nil
	})
	var secret corev1.Secret
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: cluster.RegistryNamespace, Name: "kpatch-self-ca"}, &secret); err != nil || len(secret.Data["ca.crt"]) == 0 {
		t.Fatalf("the CA Secret: %v", err)
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "selftls", Labels: map[string]string{"kpatch.dev/self-tls": "on"}}}
	if err := env.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	var created *appsv1.Deployment
	eventually(t, 30*time.Second, func() error {
		d := deployment("selftls", "secure")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if d.Labels["tls"] != "self-managed" {
			return fmt.Errorf("not patched yet: %v", d.Labels)
		}
		created = d
		return nil
	})
	if created.Labels["tls"] != "self-managed" {
		t.Errorf("labels %v", created.Labels)
	}
}
