package servingcert

import (
	"bytes"
	"context"
	"testing"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestCABundleOfBothConfigurations(t *testing.T) {
	ca := caPEM(t, "ca")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "ca", Namespace: "ns"}, Data: map[string][]byte{"ca.crt": ca}}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "kpatch"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "mutate.kpatch.dev"}}}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "kpatch"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "validate-registry.kpatch.dev"}}}
	for _, withVWC := range []bool{true, false} {
		objs := []client.Object{secret.DeepCopy(), mwc.DeepCopy()}
		if withVWC {
			objs = append(objs, vwc.DeepCopy())
		}
		c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(objs...).Build()
		k, err := New(Options{Namespace: "ns", SecretName: "ca", DNSNames: []string{"svc.ns.svc"}, WebhookConfiguration: "kpatch", Log: logr.Discard()})
		if err != nil {
			t.Fatal(err)
		}
		k.SetClients(c, c)
		if ok, err := k.syncCABundle(context.Background()); !ok || err != nil {
			t.Fatalf("with a VWC %v: synced %v, %v", withVWC, ok, err)
		}
		var gotM admissionregistrationv1.MutatingWebhookConfiguration
		if err := c.Get(context.Background(), types.NamespacedName{Name: "kpatch"}, &gotM); err != nil || !bytes.Equal(gotM.Webhooks[0].ClientConfig.CABundle, ca) {
			t.Errorf("with a VWC %v: the MWC's caBundle is not the CA (%v)", withVWC, err)
		}
		if !withVWC {
			continue
		}
		var gotV admissionregistrationv1.ValidatingWebhookConfiguration
		if err := c.Get(context.Background(), types.NamespacedName{Name: "kpatch"}, &gotV); err != nil || !bytes.Equal(gotV.Webhooks[0].ClientConfig.CABundle, ca) {
			t.Errorf("the VWC's caBundle is not the CA (%v)", err)
		}
	}
}
