package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Relay forwards TCP connections from its address to its targets, each
// new connection to the next target that serves and accepts it (round
// robin). It stands for a Service in front of the webhook's replicas
// (Serving is then its endpoints: the replicas that are ready), and for the
// network between the webhook and the API server, which Cut breaks as a
// control-plane upgrade does: the open connections (the watches among
// them) are closed and new ones refused until Heal.
type Relay struct {
	Addr    string
	targets []string
	serving func(i int) bool

	mu       sync.Mutex
	listener net.Listener
	conns    map[net.Conn]net.Conn // in to out
	next     int
	// Forwarded counts the connections forwarded to each target.
	Forwarded []atomic.Int64
	// Closed counts the connections Cut closed.
	Closed atomic.Int64
}

// NewRelay listens on addr ("127.0.0.1:0": a free port) and forwards to
// targets; serving, when not nil, says whether target i may be sent
// connections.
func NewRelay(addr string, serving func(i int) bool, targets ...string) (*Relay, error) {
	r := &Relay{targets: targets, serving: serving, conns: map[net.Conn]net.Conn{}, Forwarded: make([]atomic.Int64, len(targets))}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	r.Addr = l.Addr().String()
	r.serve(l)
	return r, nil
}

func (r *Relay) serve(l net.Listener) {
	r.mu.Lock()
	r.listener = l
	r.mu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go r.forward(c)
		}
	}()
}

// dialTimeout bounds the dial of one target.
const dialTimeout = 2 * time.Second

func (r *Relay) forward(in net.Conn) {
	r.mu.Lock()
	start := r.next
	r.next = (r.next + 1) % len(r.targets)
	r.mu.Unlock()
	var out net.Conn
	var err error
	for i := range r.targets {
		t := (start + i) % len(r.targets)
		if r.serving != nil && !r.serving(t) {
			err = fmt.Errorf("target %d is not serving", t)
			continue
		}
		if out, err = net.DialTimeout("tcp", r.targets[t], dialTimeout); err == nil {
			r.Forwarded[t].Add(1)
			break
		}
	}
	if err != nil || !r.track(in, out) {
		_ = in.Close()
		if out != nil {
			_ = out.Close()
		}
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		// half-close: the other direction may still be answering
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(out, in)
	go pipe(in, out)
	<-done
	<-done
	r.untrack(in)
	_ = in.Close()
	_ = out.Close()
}

// track records a relayed pair; false when the relay is cut meanwhile.
func (r *Relay) track(in, out net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.listener == nil {
		return false
	}
	r.conns[in] = out
	return true
}

func (r *Relay) untrack(in net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.conns, in)
}

// Cut stops listening (a new connection is refused) and closes every
// relayed connection.
func (r *Relay) Cut() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.listener == nil {
		return errors.New("the relay is cut already")
	}
	err := r.listener.Close()
	r.listener = nil
	for in, out := range r.conns {
		_ = in.Close()
		_ = out.Close()
		r.Closed.Add(1)
	}
	clear(r.conns)
	return err
}

// Heal listens again on the same address.
func (r *Relay) Heal() error {
	var l net.Listener
	var err error
	// the port was released by Cut; another process could take it, but
	// nothing on a loopback test machine races for it in practice
	for range 50 {
		if l, err = net.Listen("tcp", r.Addr); err == nil {
			r.serve(l)
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("listening again on %s: %w", r.Addr, err)
}

// Close stops the relay.
func (r *Relay) Close() {
	r.mu.Lock()
	l := r.listener
	r.mu.Unlock()
	if l != nil {
		_ = r.Cut()
	}
}
