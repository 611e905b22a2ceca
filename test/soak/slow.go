package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// SlowBodies holds connections open against the webhook, each the headers
// of a 7,000,000-byte POST /mutate and one byte of its body (issue 22's
// slow-body attack): when the webhook's read timeout answers and closes
// one, it is opened again, so that n are held all along.
type SlowBodies struct {
	// Opened counts the connections opened; Answered those the webhook
	// answered with its read error and closed.
	Opened, Answered atomic.Int64
	// Held is how many are open now.
	Held atomic.Int64
}

// slowBody is the start of the request a slow connection sends, to path
// (/mutate with the path token: without it, the request is refused before
// its body is read).
const slowBody = "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 7000000\r\n\r\n{"

// Hold holds n slow connections, spread over the replicas, until ctx
// ends.
func (s *SlowBodies) Hold(ctx context.Context, n int, replicas []*Replica, caData []byte) {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caData)
	cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := replicas[i%len(replicas)]
			for ctx.Err() == nil {
				// a replica that is not serving (stopped, or starting and
				// answering 503 at once) is left alone until it is
				if !r.Serving() || !s.holdOne(ctx, r, cfg) {
					// restarting: try again shortly
					select {
					case <-ctx.Done():
					case <-time.After(time.Second):
					}
				}
			}
		}()
	}
	wg.Wait()
}

// holdOne opens one slow connection to r and holds it until the webhook
// closes it or ctx ends; false when it could not be opened.
func (s *SlowBodies) holdOne(ctx context.Context, r *Replica, cfg *tls.Config) bool {
	w := r.Webhook()
	if w == nil {
		return false
	}
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: 2 * time.Second}, Config: cfg}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.Port)))
	if err != nil {
		return false
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, slowBody, w.Path("/mutate")); err != nil {
		return false
	}
	s.Opened.Add(1)
	s.Held.Add(1)
	defer s.Held.Add(-1)
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	got, _ := io.ReadAll(conn)
	if bytes.HasPrefix(got, []byte("HTTP/1.1 ")) {
		s.Answered.Add(1)
	}
	return true
}
