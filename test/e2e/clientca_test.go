package e2e

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// TestClientCertificateRequired runs a control plane of its own whose API
// server presents a client certificate to the webhook (its admission
// configuration's kubeconfig), and the webhook with --client-ca-file of
// that certificate's CA: the API server's objects are still patched, and
// a review posted directly without a certificate is refused at the TLS
// handshake.
func TestClientCertificateRequired(t *testing.T) {
	ctx := context.Background()
	c, err := cluster.Start(ctx, cluster.Options{ExcludeNamespaces: []string{"kube-system"}, WebhookClientCertificate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Stop() }()
	var logs lockedBuffer
	w, err := c.StartWebhook(ctx, webhookBin, 0, &logs, "--client-ca-file", c.ClientCAFile)
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	defer w.Stop()
	defer func() {
		if t.Failed() {
			t.Logf("webhook log:\n%s", logs.String())
		}
	}()

	reg := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "client-ca", Namespace: cluster.RegistryNamespace, Labels: map[string]string{"kpatch.dev/registry": "true"}},
		Data:       map[string]string{"web.kpatch": "[deployment.web]\nreplicas: 3\n"},
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{cluster.InjectLabel: "enabled"}}}
	for _, o := range []client.Object{reg, ns} {
		if err := c.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, time.Minute, func() error {
		d := deployment("shop", "web")
		if err := c.Client.Create(ctx, d, &client.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			return err
		}
		if *d.Spec.Replicas != 3 {
			return fmt.Errorf("replicas %d, want 3", *d.Spec.Replicas)
		}
		return nil
	})

	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"forged","operation":"CREATE","namespace":"shop","name":"web",` +
		`"kind":{"group":"apps","version":"v1","kind":"Deployment"},"resource":{"group":"apps","version":"v1","resource":"deployments"},` +
		`"object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":1}}}}`
	resp, err := c.HTTPClient().Post(fmt.Sprintf("https://127.0.0.1:%d%s", w.Port, w.Path("/mutate")), "application/json", bytes.NewReader([]byte(review)))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a review without a client certificate: answered %s", resp.Status)
	}
	if !strings.Contains(err.Error(), "tls: certificate required") {
		t.Errorf("a review without a client certificate: refused, but not at the TLS handshake: %v", err)
	}
}
