package app

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/pathtoken"
	"kpatch.dev/kpatch/pkg/registry"
)

// failsafe bounds every wait of these tests: far longer than anything
// they wait for takes, it only keeps a broken server from hanging them.
const failsafe = 30 * time.Second

// testServer is the webhook server of the options of args, as Run builds
// it, serving /mutate with a registry of one file (replicas: 3 on the
// Deployment web) on a free loopback port with a self-signed certificate.
type testServer struct {
	addr    string
	client  *http.Client
	tls     *tls.Config // a client's
	metrics *metrics.Metrics
	// token is the path token, "" with --path-token-secret=""
	token string
}

func startServer(t *testing.T, args ...string) *testServer {
	t.Helper()
	o := parse(t, args...)
	s, err := o.parse()
	if err != nil {
		t.Fatal(err)
	}
	cert, pool := selfSigned(t)
	tlsOpts := append(o.tlsOptions(nil), func(c *tls.Config) {
		c.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &cert, nil }
	})
	srv := o.newWebhookServer(tlsOpts)
	srv.listen = func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
	var c registry.Compiler
	built := c.Build([]corev1.ConfigMap{{
		ObjectMeta: metav1.ObjectMeta{Name: "reg", Namespace: s.namespace, ResourceVersion: "1"},
		Data:       map[string]string{"f.kpatch": "[deployment.web]\nreplicas: 3\n"},
	}}, nil)
	if len(built.Problems) > 0 {
		t.Fatal(built.Problems)
	}
	reg := built.Registry
	metrics := metrics.NewMetrics(prometheus.NewRegistry())
	mutate := o.mutateHandler(&admission.Handler{
		Registry: func() *registry.Registry { return reg }, RegistryNamespace: s.namespace, Operations: s.operations,
		OnError: s.onError, Metrics: metrics, Budget: s.budget,
	})
	// /validate-registry, over a registry of one good ConfigMap
	watcher := registryWatcher(s, metrics)
	if err := watcher.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	paths := pathTokenOf(t, o, s, metrics)
	srv.serveReviews(paths, mutate, o.validateHandler(admission.NewRegistryValidator(watcher), metrics))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	waitFor(t, "the server to listen", func() bool { return srv.address() != "" })
	if err := srv.StartedChecker()(nil); err != nil {
		t.Fatal(err)
	}
	clientTLS := &tls.Config{RootCAs: pool, ServerName: "localhost"}
	transport := &http.Transport{TLSClientConfig: clientTLS}
	t.Cleanup(transport.CloseIdleConnections)
	ts := &testServer{addr: srv.address(), client: &http.Client{Transport: transport, Timeout: failsafe}, tls: clientTLS, metrics: metrics}
	if paths != nil {
		ts.token = paths.Token()
	}
	return ts
}

// pathTokenOf is the path token's keeper of the options, as Run makes it,
// over a fake API server where it creates its Secret, synced once; nil
// with --path-token-secret="".
func pathTokenOf(t *testing.T, o *Options, s settings, m *metrics.Metrics) *pathtoken.Keeper {
	t.Helper()
	if o.PathTokenSecret == "" {
		return nil
	}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).Build()
	k, err := pathtoken.New(pathtoken.Options{Namespace: s.namespace, SecretName: o.PathTokenSecret, Reader: c, Writer: c, Metrics: m, Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return k
}

// path is where the API server calls base on the server: base, a "/" and
// the path token (base alone without one).
func (s *testServer) path(base string) string {
	if s.token == "" {
		return base
	}
	return base + "/" + s.token
}

// registryWatcher is the watcher of a registry of one good ConfigMap
// (replicas: 3 on the Deployment web), not synced yet.
func registryWatcher(s settings, m *metrics.Metrics) *admission.Watcher {
	return &admission.Watcher{
		Client: fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "reg", Namespace: s.namespace, Labels: map[string]string{"kpatch.dev/registry": "true"}},
			Data:       map[string]string{"f.kpatch": "[deployment.web]\nreplicas: 3\n"},
		}).Build(),
		Namespace: s.namespace, Selector: s.selector, Metrics: m, Log: logr.Discard(),
	}
}

// selfSigned is a certificate for localhost and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// waitFor polls cond until it holds, failing the test after failsafe.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(failsafe); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("waited %s for %s", failsafe, what)
		}
	}
}

// reviewBody is an AdmissionReview of a CREATE of the Deployment web.
func reviewBody(t *testing.T, uid string) []byte {
	t.Helper()
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID("u-" + uid), Operation: admissionv1.Create, Namespace: "shop", Name: "web",
			Kind:   metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Object: runtime.RawExtension{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":1}}`)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// review posts a review of the Deployment web and returns the HTTP
// status and, for a 200, the answer.
func (s *testServer) review(t *testing.T, uid string) (int, *admissionv1.AdmissionResponse, http.Header) {
	t.Helper()
	resp, err := s.client.Post("https://"+s.addr+s.path(admission.MutatePath)+"?timeout=10s", "application/json", bytes.NewReader(reviewBody(t, uid)))
	if err != nil {
		t.Fatalf("review %s: %v", uid, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("review %s: %v", uid, err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil, resp.Header
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &out); err != nil || out.Response == nil {
		t.Fatalf("review %s: answer %.300s: %v", uid, body, err)
	}
	return resp.StatusCode, out.Response, resp.Header
}

// wantPatched checks that a review is answered with its uid and the patch.
func (s *testServer) wantPatched(t *testing.T, uid string) {
	t.Helper()
	code, resp, _ := s.review(t, uid)
	if code != http.StatusOK || string(resp.UID) != "u-"+uid || !resp.Allowed || !strings.Contains(string(resp.Patch), `"/spec/replicas"`) {
		t.Errorf("review %s: %d %+v", uid, code, resp)
	}
}

// slowConnection opens a TLS connection and sends the headers of a
// review announcing 7,000,000 bytes to /mutate, and one byte of it.
func (s *testServer) slowConnection(t *testing.T) net.Conn {
	t.Helper()
	return s.slowConnectionTo(t, admission.MutatePath)
}

// slowConnectionTo is slowConnection to base, with the path token.
func (s *testServer) slowConnectionTo(t *testing.T, base string) net.Conn {
	t.Helper()
	conn, err := tls.Dial("tcp", s.addr, s.tls)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_, err = fmt.Fprintf(conn, "POST %s?timeout=10s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 7000000\r\n\r\n{", s.path(base))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// inFlight is controller-runtime's gauge of the requests /mutate is
// serving (controller_runtime_webhook_requests_in_flight), which counts a
// request from its headers to its answer.
func inFlight(t *testing.T) float64 {
	t.Helper()
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "controller_runtime_webhook_requests_in_flight" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "webhook" && l.GetValue() == "/mutate" {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	return 0
}

// heap is the live heap after two collections.
func heap() goruntime.MemStats {
	goruntime.GC()
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m
}

const mib = 1 << 20

// TestSlowBodiesHoldNoMemory holds 100 TLS connections that each send the
// headers of a 7,000,000-byte review and one byte of it, with the default
// options but for a read timeout longer than the test (so that none ends
// before the heap is measured, however slow the machine): the heap (live
// after a collection, the test's own client connections included) moves
// by less than 10 MiB from idle, and reviews are answered with their patch
// meanwhile.
func TestSlowBodiesHoldNoMemory(t *testing.T) {
	s := startServer(t, "--read-timeout=1h", "--write-timeout=1h")
	for i := range 5 {
		s.wantPatched(t, fmt.Sprint("warm-", i))
	}
	s.client.Transport.(*http.Transport).CloseIdleConnections()
	idle := heap()
	const slow = 100
	for range slow {
		s.slowConnection(t)
	}
	waitFor(t, "the slow requests to be served", func() bool { return inFlight(t) >= slow })
	for i := range 20 {
		s.wantPatched(t, fmt.Sprint("during-", i))
	}
	held := heap()
	if n := inFlight(t); n < slow {
		t.Fatalf("%v requests in flight, want the %d slow ones still", n, slow)
	}
	alloc, inuse := int64(held.HeapAlloc)-int64(idle.HeapAlloc), int64(held.HeapInuse)-int64(idle.HeapInuse)
	t.Logf("%d slow connections: heap alloc %.1f -> %.1f MiB (%+.1f), in use %.1f -> %.1f MiB (%+.1f)", slow,
		float64(idle.HeapAlloc)/mib, float64(held.HeapAlloc)/mib, float64(alloc)/mib,
		float64(idle.HeapInuse)/mib, float64(held.HeapInuse)/mib, float64(inuse)/mib)
	if alloc >= 10*mib || inuse >= 10*mib {
		t.Errorf("%d slow connections moved the heap by %.1f MiB allocated, %.1f MiB in use; want less than 10 MiB", slow, float64(alloc)/mib, float64(inuse)/mib)
	}
}

// TestReadTimeoutClosesSlowConnections: a request whose body stops
// coming is answered with the read error and its connection closed once
// --read-timeout has passed; one whose headers stop coming is closed once
// --read-header-timeout has.
func TestReadTimeoutClosesSlowConnections(t *testing.T) {
	s := startServer(t, "--read-timeout=300ms", "--read-header-timeout=200ms")
	body := s.slowConnection(t)
	headers, err := tls.Dial("tcp", s.addr, s.tls)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = headers.Close() })
	if _, err := fmt.Fprintf(headers, "POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: app"); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		conn   net.Conn
		answer string // what the answer before the close says
	}{
		"body":    {body, "reading the AdmissionReview after 1 bytes"},
		"headers": {headers, ""},
	} {
		if err := c.conn.SetReadDeadline(time.Now().Add(failsafe)); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(c.conn)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("slow %s: the connection is still open after %s", name, failsafe)
			continue
		}
		if c.answer == "" && len(got) > 0 || c.answer != "" && !bytes.Contains(got, []byte(c.answer)) {
			t.Errorf("slow %s: answered %q before the close, want %q", name, got, c.answer)
		}
	}
	s.wantPatched(t, "after")
}

// TestInFlightBoundAnswers429: with --max-in-flight=2 and two slow
// requests being served, a review is answered 429 with Retry-After before
// its body is read, and counted; once they are gone, reviews are
// answered again.
func TestInFlightBoundAnswers429(t *testing.T) {
	s := startServer(t, "--max-in-flight=2")
	slow := []net.Conn{s.slowConnection(t), s.slowConnection(t)}
	waitFor(t, "the slow requests to be served", func() bool { return inFlight(t) >= 2 })
	code, _, header := s.review(t, "refused")
	if code != http.StatusTooManyRequests || header.Get("Retry-After") != "1" {
		t.Errorf("a review beyond the bound: %d, Retry-After %q", code, header.Get("Retry-After"))
	}
	if n := testutil.ToFloat64(s.metrics.RejectedRequests.WithLabelValues(metrics.RejectInFlight)); n != 1 {
		t.Errorf("kpatch_admission_requests_rejected_total{reason=%q} = %v, want 1", metrics.RejectInFlight, n)
	}
	if n := testutil.ToFloat64(s.metrics.Requests.WithLabelValues(metrics.ResultMutated)); n != 0 {
		t.Errorf("the refused review was handled: %v mutated", n)
	}
	for _, c := range slow {
		_ = c.Close()
	}
	waitFor(t, "the slow requests to end", func() bool { return inFlight(t) == 0 })
	s.wantPatched(t, "after")
	if n := testutil.ToFloat64(s.metrics.RejectedRequests.WithLabelValues(metrics.RejectInFlight)); n != 1 {
		t.Errorf("kpatch_admission_requests_rejected_total{reason=%q} = %v after, want 1", metrics.RejectInFlight, n)
	}
}

// TestServingFlags: the serving flags' defaults and values reach the
// manager's webhook server; a duration that is not positive or a negative
// bound is refused.
func TestServingFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want ServingOptions
	}{
		{nil, ServingOptions{ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 90 * time.Second, MaxInFlight: 128}},
		{[]string{"--read-header-timeout=1s", "--read-timeout=2s", "--write-timeout=3s", "--idle-timeout=4s", "--max-in-flight=0"},
			ServingOptions{ReadHeaderTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 3 * time.Second, IdleTimeout: 4 * time.Second}},
	} {
		o := parse(t, c.args...)
		s, err := o.parse()
		if err != nil {
			t.Fatal(err)
		}
		ws, ok := o.managerOptions(s, nil).WebhookServer.(*webhookServer)
		if !ok || ws.serving != c.want || ws.opts.Port != 9443 {
			t.Errorf("%v: webhook server %T %+v, want %+v", c.args, ws, ws, c.want)
		}
	}
	o := parse(t, "--read-header-timeout=0s", "--read-timeout=-1s", "--write-timeout=0s", "--idle-timeout=0s", "--max-in-flight=-1")
	err := o.Validate()
	for _, flag := range []string{"--read-header-timeout", "--read-timeout", "--write-timeout", "--idle-timeout", "--max-in-flight"} {
		if err == nil || !strings.Contains(err.Error(), flag+":") {
			t.Errorf("%s not refused: %v", flag, err)
		}
	}
}
