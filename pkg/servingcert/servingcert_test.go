package servingcert

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
	"time"

	"k8s.io/client-go/util/cert"
)

func caPEM(t *testing.T, name string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cert.NewSelfSignedCACert(cert.Config{CommonName: name}, key)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cert.EncodeCertificates(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBundleKeepsThePreviousCAAfterARotation(t *testing.T) {
	first, second, third := caPEM(t, "first"), caPEM(t, "second"), caPEM(t, "third")
	if got := caBundle(first, nil); !bytes.Equal(got, first) {
		t.Fatal("the first bundle is not the CA")
	}
	got := caBundle(second, first)
	if !bytes.HasPrefix(got, second) || !bytes.Contains(got, first) {
		t.Errorf("after a rotation the bundle must hold the new CA, then the old one")
	}
	if again := caBundle(second, got); !bytes.Equal(again, got) {
		t.Error("the bundle is not stable: replicas would overwrite each other")
	}
	after := caBundle(third, got)
	if certs, err := cert.ParseCertsPEM(after); err != nil || len(certs) != 3 || !bytes.HasPrefix(after, third) {
		t.Errorf("after a second rotation: %d certificates, %v", len(certs), err)
	}
	if got := caBundle(first, []byte("garbage")); !bytes.Equal(got, first) {
		t.Error("garbage in the current bundle was kept")
	}
}

func TestNewNeedsNames(t *testing.T) {
	if _, err := New(Options{Namespace: "ns", SecretName: "ca"}); err == nil {
		t.Error("accepted options without DNS names or a webhook configuration")
	}
	k, err := New(Options{Namespace: "ns", SecretName: "ca", DNSNames: []string{"svc.ns.svc"}, WebhookConfiguration: "kpatch"})
	if err != nil || k.o.LeafDuration != 7*24*time.Hour || k.NeedLeaderElection() {
		t.Errorf("defaults: %v %+v", err, k.o)
	}
}
