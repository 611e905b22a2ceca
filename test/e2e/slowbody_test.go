package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSlowBodiesAgainstTheBinary: 80 TLS connections that each send the
// headers of a 7,000,000-byte POST /mutate and one byte (which took the
// webhook from 59 to 597 MiB resident before the body buffer grew as bytes
// arrive) move the webhook process's resident memory by less than 32 MiB;
// objects are patched through the API server meanwhile; the default
// --read-timeout answers and closes every one of the connections.
func TestSlowBodiesAgainstTheBinary(t *testing.T) {
	registry(t, "slowbody", map[string]string{"slow.kpatch": "[deployment.slowbody-web]\nreplicas: 3\n"})
	namespace(t, "slowbody", true)
	patched := func() error {
		d := deployment("slowbody", "slowbody-web")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if *d.Spec.Replicas != 3 {
			return fmt.Errorf("not patched: replicas %d", *d.Spec.Replicas)
		}
		return nil
	}
	eventually(t, 10*time.Second, patched)
	token, err := env.MetricsToken(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before, err := webhook.ResidentBytes()
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(env.CAData)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(webhook.Port))
	const slow = 80
	conns := make([]net.Conn, 0, slow)
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	for range slow {
		conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12})
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
		// at the path with the token: without it, the request is refused
		// before its body is read
		if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 7000000\r\n\r\n{", webhook.Path("/mutate")); err != nil {
			t.Fatal(err)
		}
	}
	allInFlight := func() error {
		_, body, err := env.Scrape(context.Background(), webhook, token)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(body, "\n") {
			if rest, ok := strings.CutPrefix(line, `controller_runtime_webhook_requests_in_flight{webhook="/mutate"} `); ok {
				if n, _ := strconv.ParseFloat(rest, 64); n >= slow {
					return nil
				}
				return fmt.Errorf("%s requests in flight, want the %d slow ones", rest, slow)
			}
		}
		return errors.New("no in-flight gauge for /mutate")
	}
	eventually(t, 10*time.Second, allInFlight)
	for range 5 {
		if err := patched(); err != nil {
			t.Errorf("while the slow connections are held: %v", err)
		}
	}
	held, err := webhook.ResidentBytes()
	if err != nil {
		t.Fatal(err)
	}
	// measured while every slow request was still held (the read
	// timeout, 10 s, had not ended one yet)
	if err := allInFlight(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d slow connections: resident %.1f -> %.1f MiB (%+.1f)", slow, float64(before)/(1<<20), float64(held)/(1<<20), float64(held-before)/(1<<20))
	if held-before >= 32<<20 {
		t.Errorf("%d slow connections grew the webhook by %.1f MiB resident, want less than 32", slow, float64(held-before)/(1<<20))
	}
	// --read-timeout (10 s by default) answers each with the read error
	// and closes it; the failsafe only keeps a server that never does
	// from hanging the test
	for i, c := range conns {
		if err := c.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(c)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("slow connection %d still open after a minute", i)
		}
		if !bytes.Contains(got, []byte("reading the AdmissionReview after 1 bytes")) {
			t.Errorf("slow connection %d: answered %.300q", i, got)
		}
	}
	if err := patched(); err != nil {
		t.Errorf("after the slow connections: %v", err)
	}
}
