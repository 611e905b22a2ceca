package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"kpatch.dev/kpatch/test/cluster"
)

// Replica is one of the webhook's processes, on a port of its own behind
// the relay the API server calls, as a user of its own of the API server
// (User). It can be restarted on the same port.
type Replica struct {
	Name string
	User string
	Port int
	Log  *ReplicaLog

	c    *cluster.Cluster
	bin  string
	args []string

	mu sync.Mutex
	w  *cluster.Webhook // nil while restarting
	// token is the path token the replica serves, read once it is ready:
	// the webhook keeps it in a Secret, the same after a restart.
	token string
	// runs are the times each process ran, from its launch to its stop
	// (zero while it runs).
	runs []interval
	// ready is what a Service's endpoints know: the process passed its
	// readiness check and is not being stopped. starting: launched, not
	// ready yet.
	ready, starting atomic.Bool
}

// StartReplica starts a webhook process on port, as the API server's user
// of kubeconfig (user), logging to logPath, and waits until it is ready.
func StartReplica(ctx context.Context, c *cluster.Cluster, bin, name, user, kubeconfig string, port int, logPath string, args ...string) (*Replica, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	args = append([]string{"--kubeconfig", kubeconfig}, args...)
	r := &Replica{Name: name, User: user, Port: port, Log: &ReplicaLog{f: f, Path: logPath}, c: c, bin: bin, args: args}
	return r, r.Up(ctx)
}

// Launch starts the process and returns at once: it is not ready, and
// the relay sends it nothing, until WaitReady.
func (r *Replica) Launch() error {
	w, err := r.c.LaunchWebhook(r.bin, r.Port, r.Log, r.args...)
	if err != nil {
		return fmt.Errorf("replica %s: %w (log: %s)", r.Name, err, r.Log.Path)
	}
	r.mu.Lock()
	w.PathToken = r.token
	r.w = w
	r.runs = append(r.runs, interval{from: time.Now()})
	r.mu.Unlock()
	r.starting.Store(true)
	return nil
}

// WaitReady waits until the launched process is ready; then the relay
// sends it connections.
func (r *Replica) WaitReady(ctx context.Context) error {
	if err := r.Webhook().WaitReady(ctx); err != nil {
		r.mu.Lock()
		r.w = nil // stopped
		r.mu.Unlock()
		r.Log.stopped(time.Now())
		r.ended(time.Now())
		return fmt.Errorf("replica %s: %w (log: %s)", r.Name, err, r.Log.Path)
	}
	w := r.Webhook()
	if err := r.c.ReadPathToken(ctx, w, r.bin, r.args); err != nil {
		return fmt.Errorf("replica %s: %w (log: %s)", r.Name, err, r.Log.Path)
	}
	r.mu.Lock()
	r.token = w.PathToken
	r.mu.Unlock()
	r.starting.Store(false)
	r.ready.Store(true)
	return nil
}

// ended records that the process running stopped at t.
func (r *Replica) ended(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.runs); n > 0 && r.runs[n-1].to.IsZero() {
		r.runs[n-1].to = t
	}
}

// Runs returns how long each of the replica's processes ran, the one
// running until now.
func (r *Replica) Runs() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Duration
	for _, run := range r.runs {
		to := run.to
		if to.IsZero() {
			to = time.Now()
		}
		out = append(out, to.Sub(run.from))
	}
	return out
}

// Serving reports whether a Service would send the replica requests: it
// is ready and not being stopped.
func (r *Replica) Serving() bool { return r.ready.Load() }

// Webhook returns the running process, nil while it restarts.
func (r *Replica) Webhook() *cluster.Webhook {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.w
}

// Down stops the process, for a restart: Up starts it again on the same
// port.
func (r *Replica) Down() {
	r.ready.Store(false)
	r.mu.Lock()
	w := r.w
	r.w = nil
	r.mu.Unlock()
	w.Stop()
	r.Log.stopped(time.Now())
	r.ended(time.Now())
}

// Up starts the process (again, after Down); it returns when it is
// ready.
func (r *Replica) Up(ctx context.Context) error {
	if err := r.Launch(); err != nil {
		return err
	}
	return r.WaitReady(ctx)
}

// Stop stops the process.
func (r *Replica) Stop() {
	if w := r.Webhook(); w != nil {
		w.Stop()
	}
	r.Log.close()
}

// Ready returns why /readyz does not answer OK, or nil when it does.
func (r *Replica) Ready() error {
	w := r.Webhook()
	if w == nil {
		return errRestarting
	}
	client := http.Client{Timeout: 2 * time.Second}
	resp, err := client.Get(w.ReadyURL)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("readyz: %s", resp.Status)
	}
	return nil
}

var errRestarting = fmt.Errorf("restarting")

// ReplicaLog keeps a replica's log in a file and notes when it was
// elected leader and when it stopped leading (leadership lost, or the
// process stopped).
type ReplicaLog struct {
	Path string

	mu      sync.Mutex
	f       *os.File
	partial []byte
	elected []time.Time
	ended   []time.Time
}

// The webhook's log lines that say its leadership began or ended.
var (
	electedLine = []byte(`"elected leader"`)
	lostLine    = []byte(`"leadership lost`)
)

func (l *ReplicaLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := l.partial[:i]
		if bytes.Contains(line, electedLine) {
			l.elected = append(l.elected, now)
		} else if bytes.Contains(line, lostLine) {
			l.ended = append(l.ended, now)
		}
		l.partial = l.partial[i+1:]
	}
	return l.f.Write(p)
}

func (l *ReplicaLog) stopped(t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended = append(l.ended, t)
}

func (l *ReplicaLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.f.Close()
}

// Leading reports whether the replica's last word is that it leads.
func (l *ReplicaLog) Leading() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.elected) > 0 && (len(l.ended) == 0 || l.elected[len(l.elected)-1].After(l.ended[len(l.ended)-1]))
}

// ElectedAfter returns when the replica was first elected after t.
func (l *ReplicaLog) ElectedAfter(t time.Time) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.elected {
		if e.After(t) {
			return e, true
		}
	}
	return time.Time{}, false
}

// Terms returns how many times the replica was elected, and how many of
// its terms ended (leadership lost, or the process stopped).
func (l *ReplicaLog) Terms() (elected, ended int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.elected), len(l.ended)
}

// RSSSample is the resident memory of each replica at a time (0: not
// running then).
type RSSSample struct {
	At    time.Duration // since the load began
	Bytes []int64       // in the order of the replicas
}

// sampleRSS reads the replicas' resident memory every period until ctx
// ends.
func sampleRSS(ctx context.Context, start time.Time, period time.Duration, replicas []*Replica) []RSSSample {
	var samples []RSSSample
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		s := RSSSample{At: time.Since(start), Bytes: make([]int64, len(replicas))}
		for i, r := range replicas {
			if w := r.Webhook(); w != nil {
				s.Bytes[i], _ = w.ResidentBytes()
			}
		}
		samples = append(samples, s)
		select {
		case <-ctx.Done():
			return samples
		case <-tick.C:
		}
	}
}
