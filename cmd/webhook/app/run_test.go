package app

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
)

func TestTLSOptionsTurnHTTP2Off(t *testing.T) {
	for _, c := range []struct {
		enable bool
		want   []string
	}{{false, []string{"http/1.1"}}, {true, []string{"h2", "http/1.1"}}} {
		o := NewOptions()
		o.EnableHTTP2 = c.enable
		cfg := &tls.Config{NextProtos: []string{"h2", "http/1.1"}}
		for _, f := range o.tlsOptions(nil) {
			f(cfg)
		}
		if !slices.Equal(cfg.NextProtos, c.want) {
			t.Errorf("--enable-http2=%v: protocols %v, want %v", c.enable, cfg.NextProtos, c.want)
		}
	}
}

func TestManagerOptions(t *testing.T) {
	o := parse(t, "--cert-dir=/tls", "--metrics-bind-address=:9090", "--registry-namespace=reg")
	s, err := o.parse()
	if err != nil {
		t.Fatal(err)
	}
	tlsOpts := o.tlsOptions(nil)
	mo := o.managerOptions(s, tlsOpts)
	m := mo.Metrics
	if !m.SecureServing || m.BindAddress != ":9090" || m.CertDir != "/tls" || len(m.TLSOpts) != len(tlsOpts) {
		t.Errorf("metrics server %+v", m)
	}
	if m.FilterProvider == nil || reflect.ValueOf(m.FilterProvider).Pointer() != reflect.ValueOf(filters.WithAuthenticationAndAuthorization).Pointer() {
		t.Error("metrics are not behind controller-runtime's authentication and authorization filter")
	}
	if mo.HealthProbeBindAddress != ":8081" || mo.WebhookServer == nil {
		t.Errorf("manager options %+v", mo)
	}
	if mo.LeaderElection {
		t.Error("leader election without --leader-elect")
	}
	if len(mo.Cache.ByObject) != 2 {
		t.Fatalf("cache %+v", mo.Cache)
	}
	for obj, by := range mo.Cache.ByObject {
		switch obj.(type) {
		case *corev1.ConfigMap:
			if len(by.Namespaces) != 1 || by.Label.String() != "kpatch.dev/registry=true" {
				t.Errorf("the cache holds ConfigMaps in %v with %v", by.Namespaces, by.Label)
			}
			if _, ok := by.Namespaces["reg"]; !ok {
				t.Errorf("the cache is not limited to the registry namespace: %v", by.Namespaces)
			}
		case *corev1.Namespace:
			// every Namespace, read only: not copied, without managed fields
			if by.UnsafeDisableDeepCopy == nil || !*by.UnsafeDisableDeepCopy || by.Transform == nil {
				t.Errorf("the Namespace cache %+v", by)
			}
		default:
			t.Errorf("the cache holds %T", obj)
		}
	}
}

// TestManagerOptionsLeaderElection: the manager never elects, even with
// --leader-elect: its election ends the process when the lease is lost
// (the elector campaigns for the leader's work instead).
func TestManagerOptionsLeaderElection(t *testing.T) {
	o := parse(t, "--leader-elect", "--leader-election-id=lease", "--registry-namespace=reg")
	s, err := o.parse()
	if err != nil {
		t.Fatal(err)
	}
	if mo := o.managerOptions(s, nil); mo.LeaderElection {
		t.Error("the manager elects a leader")
	}
}

func TestRunRefusesBadOptions(t *testing.T) {
	o := parse(t, "--tls-mode=none")
	if err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--tls-mode") {
		t.Errorf("run: %v", err)
	}
}

func TestRunNeedsAConfiguration(t *testing.T) {
	o := parse(t, "--kubeconfig=/nonexistent/kubeconfig")
	if err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "/nonexistent/kubeconfig") {
		t.Errorf("run: %v", err)
	}
}

func TestServingCertKeeperOnlyInSelfManagedMode(t *testing.T) {
	k, err := parse(t).servingCertKeeper("reg", &rest.Config{})
	if err != nil || k != nil {
		t.Errorf("files mode: %v %v", k, err)
	}
	o := parse(t, "--tls-mode=self-managed", "--tls-dns-names=a.svc", "--webhook-configuration-name=mwc")
	k, err = o.servingCertKeeper("reg", &rest.Config{})
	if err != nil || k == nil {
		t.Fatalf("self-managed mode: %v %v", k, err)
	}
	// the keeper's certificate serves the webhook and the metrics alike
	cfg := &tls.Config{}
	for _, f := range o.tlsOptions(k) {
		f(cfg)
	}
	if cfg.GetCertificate == nil {
		t.Error("the self-managed certificate is not served")
	}
}

func TestProfilingServerOnLoopbackOnly(t *testing.T) {
	if _, err := newProfilingServer("0.0.0.0:0"); err == nil {
		t.Fatal("profiles served on every interface")
	}
	srv, err := newProfilingServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.Listener.Addr().(*net.TCPAddr)
	if !addr.IP.IsLoopback() {
		t.Fatalf("listening on %s", addr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	defer func() { cancel(); <-done }()
	resp, err := http.Get("http://" + addr.String() + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine") {
		t.Errorf("/debug/pprof/: %s %.100s", resp.Status, body)
	}
}

// TestManagerOptionsTenantRegistries: with --tenant-registries the
// manager's informer of ConfigMaps still selects the registry label in
// the registry namespace only: the tenants' are read, of the marked
// namespaces only, by informed.TenantRegistries.
func TestManagerOptionsTenantRegistries(t *testing.T) {
	o := parse(t, "--tenant-registries", "--registry-namespace=reg")
	s, err := o.parse()
	if err != nil {
		t.Fatal(err)
	}
	mo := o.managerOptions(s, nil)
	var by cache.ByObject
	ok := false
	for obj, b := range mo.Cache.ByObject {
		if _, cm := obj.(*corev1.ConfigMap); cm {
			by, ok = b, true
		}
	}
	if _, reg := by.Namespaces["reg"]; !ok || len(by.Namespaces) != 1 || !reg || by.Label.String() != "kpatch.dev/registry=true" {
		t.Errorf("the ConfigMap cache %v in %v with %v, want the registry namespace with the label", ok, by.Namespaces, by.Label)
	}
}
