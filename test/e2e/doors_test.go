package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMetricsNeedAnAuthorizedToken: /metrics is HTTPS behind
// controller-runtime's authentication and authorization filter: no token
// is 401, a forged one refused, a token the API server does not authorize for get on /metrics
// is 403, the metrics-reader's token is 200.
func TestMetricsNeedAnAuthorizedToken(t *testing.T) {
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nobody", Namespace: "default"}}); err != nil {
		t.Fatal(err)
	}
	nobody, err := env.Token(ctx, "default", "nobody")
	if err != nil {
		t.Fatal(err)
	}
	reader, err := env.MetricsToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		token string
		want  int
	}{
		"no token":          {"", http.StatusUnauthorized},
		"unauthorized user": {nobody, http.StatusForbidden},
		"metrics reader":    {reader, http.StatusOK},
	} {
		code, body, err := env.Scrape(ctx, webhook, c.token)
		if err != nil || code != c.want {
			t.Errorf("%s: %d %v, want %d\n%.200s", name, code, err, c.want, body)
		}
	}
	// controller-runtime's filter answers 500 for a token the API server
	// does not know
	if code, _, err := env.Scrape(ctx, webhook, "forged"); err != nil || code == http.StatusOK {
		t.Errorf("a forged token: %d %v", code, err)
	}
	plain := "http" + webhook.MetricsURL[len("https"):]
	if resp, err := http.Get(plain); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("metrics served over plain HTTP")
		}
	}
}

// TestProfilesNotOnTheMetricsPort: pprof is never on the metrics server,
// not even for an authorized reader.
func TestProfilesNotOnTheMetricsPort(t *testing.T) {
	ctx := context.Background()
	token, err := env.MetricsToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := *webhook
	w.MetricsURL = webhook.MetricsURL[:len(webhook.MetricsURL)-len("/metrics")] + "/debug/pprof/"
	if code, _, err := env.Scrape(ctx, &w, token); err != nil || code == http.StatusOK {
		t.Errorf("/debug/pprof/ on the metrics port: %d %v", code, err)
	}
	if resp, err := http.Get(webhook.ProfilingURL); err == nil {
		resp.Body.Close()
		t.Errorf("profiles served without --profiling: %s", resp.Status)
	}
}

// TestHTTP2IsOff: the webhook and metrics servers offer HTTP/1.1 only.
func TestHTTP2IsOff(t *testing.T) {
	u, err := url.Parse(webhook.MetricsURL)
	if err != nil {
		t.Fatal(err)
	}
	for name, addr := range map[string]string{
		"webhook": net.JoinHostPort("127.0.0.1", strconv.Itoa(webhook.Port)),
		"metrics": u.Host,
	} {
		if proto, err := negotiate(addr); err != nil || proto != "http/1.1" {
			t.Errorf("%s server: negotiated %q (%v), want http/1.1", name, proto, err)
		}
	}
}

// negotiate opens a TLS connection offering h2 and HTTP/1.1 and returns
// the protocol the server chose.
func negotiate(addr string) (string, error) {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(env.CAData)
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return "", fmt.Errorf("dialing %s: %w", addr, err)
	}
	defer conn.Close()
	return conn.ConnectionState().NegotiatedProtocol, nil
}
