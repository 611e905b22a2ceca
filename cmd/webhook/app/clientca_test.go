package app

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kpatch.dev/kpatch/pkg/admission"
)

// testCA is a certificate authority that signs client certificates.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// client is a client certificate the CA signed.
func (ca *testCA) client(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// post posts a review of the Deployment web with the client certificates
// certs[0] (none: no certificate) on a new connection; it returns the HTTP
// status, or the error of a refused connection.
func (s *testServer) post(t *testing.T, certs ...tls.Certificate) (int, string, error) {
	t.Helper()
	cfg := s.tls.Clone()
	if len(certs) > 0 {
		// sent whatever CAs the server names as acceptable
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &certs[0], nil }
	}
	transport := &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: failsafe}
	resp, err := client.Post("https://"+s.addr+s.path(admission.MutatePath)+"?timeout=10s", "application/json", bytes.NewReader(reviewBody(t, "c")))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// TestClientCAFile: with --client-ca-file, a review with a client
// certificate of that CA is answered with its patch; one without a
// certificate, or with one of another CA, is refused at the TLS
// handshake. A new CA written to the file takes over: the old CA's
// clients are refused, the new one's answered.
func TestClientCAFile(t *testing.T) {
	apiserver, other := newTestCA(t, "apiserver-client-ca"), newTestCA(t, "other")
	file := filepath.Join(t.TempDir(), "client-ca.crt")
	if err := os.WriteFile(file, apiserver.pem, 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "--client-ca-file", file)

	code, body, err := s.post(t, apiserver.client(t))
	if err != nil || code != http.StatusOK || !strings.Contains(body, `"allowed":true`) || !strings.Contains(body, `"patch"`) {
		t.Errorf("client of the CA: %d %.300s %v", code, body, err)
	}
	for name, certs := range map[string][]tls.Certificate{"no certificate": nil, "another CA": {other.client(t)}} {
		if code, body, err := s.post(t, certs...); err == nil {
			t.Errorf("%s: answered %d %.300s", name, code, body)
		} else if !strings.Contains(err.Error(), "tls:") {
			t.Errorf("%s: refused but not at the TLS handshake: %v", name, err)
		}
	}

	if err := os.WriteFile(file, other.pem, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new client CA", func() bool {
		_, _, err := s.post(t, other.client(t))
		return err == nil
	})
	if code, body, err := s.post(t, apiserver.client(t)); err == nil {
		t.Errorf("client of the replaced CA: answered %d %.300s", code, body)
	}
}

// TestClientCAFileMissing: the server does not start with a client CA
// file that cannot be read, or holds no certificate.
func TestClientCAFileMissing(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.crt")
	if err := os.WriteFile(empty, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{filepath.Join(dir, "absent.crt"), empty} {
		cert, _ := selfSigned(t)
		srv := parse(t, "--client-ca-file", file).newWebhookServer([]func(*tls.Config){func(c *tls.Config) {
			c.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &cert, nil }
		}})
		_, err := srv.tlsConfig(t.Context())
		if err == nil || !strings.Contains(err.Error(), "--client-ca-file "+file) {
			t.Errorf("%s: %v", file, err)
		}
	}
}
