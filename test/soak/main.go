// Command soak runs the webhook, as its binary in two replicas with leader
// election, under mixed load through a real kube-apiserver for a while,
// and meanwhile: edits the registry every second (two edits racing every
// 20 s), restarts the leading replica (the other one takes the lease) and
// posts reviews straight to it while its registry cannot sync yet, floods
// it with creates while --events-on-patch records Events, holds 20
// slow-body connections against the replicas, posts forged reviews
// straight to them, cuts them off the API server for 30 s (their watches
// break, as in a control-plane upgrade, while the API server still calls
// them), and plants a forged entry in the last good store while no
// replica runs. It reports the answers per outcome, their latency, the
// staleness of the registry they carried, the replicas' resident memory
// over time, and exits non-zero when an object was admitted unpatched
// where the registry in force patches it, when the API server refused an
// answer, when an answer held another namespace's data, when a replica
// stopped being ready or did not catch up after the cut, and when one of
// the properties of the phases above broke.
//
//	go run ./test/soak [-duration 10m] [-cut 30s]    (make soak; SOAK_DURATION sets the duration)
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"kpatch.dev/kpatch/test/cluster"
)

// Config is what a soak run does.
type Config struct {
	Duration, Cut, MaxStale, CatchUp time.Duration
	Workers                          int
	Rate, ForgedRate                 float64
	Slow                             int
	// Unsynced: how long the restarted replica may not read the
	// registry; RaceEvery: how often two edits race.
	Unsynced, RaceEvery time.Duration
	// Flood, FloodRate: the flood's length and its creates a second;
	// EventsRate: --events-on-patch-rate; FloodP99: the most the p99 of
	// the webhook's own answers may be during the flood.
	Flood, FloodP99       time.Duration
	FloodRate, EventsRate float64
}

func main() {
	duration := 10 * time.Minute
	if s := os.Getenv("SOAK_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "soak: SOAK_DURATION:", err)
			os.Exit(2)
		}
		duration = d
	}
	// controller-runtime's clients log nothing the soak reads
	ctrllog.SetLogger(logr.Discard())
	var cfg Config
	flag.DurationVar(&cfg.Duration, "duration", duration, "how long the load runs (default $SOAK_DURATION, else 10m)")
	flag.DurationVar(&cfg.Cut, "cut", 30*time.Second, "how long the replicas are cut off the API server, from the middle of the run")
	flag.DurationVar(&cfg.MaxStale, "max-stale", 10*time.Second, "how long after a registry edit was written an answer may still carry the version before it (outside the cut)")
	flag.DurationVar(&cfg.CatchUp, "catch-up", time.Minute, "how long after the cut heals the replicas may take to answer with an edit made after it")
	flag.IntVar(&cfg.Workers, "workers", 4, "concurrent writers through the API server")
	flag.Float64Var(&cfg.Rate, "rate", 20, "writes per second through the API server, at most")
	flag.Float64Var(&cfg.ForgedRate, "forged-rate", 5, "forged reviews per second")
	flag.IntVar(&cfg.Slow, "slow", 20, "slow-body connections held against the replicas")
	flag.DurationVar(&cfg.Unsynced, "unsynced", 5*time.Second, "how long the restarted replica may not read the registry after its launch, while reviews are posted straight to it")
	flag.DurationVar(&cfg.RaceEvery, "race-every", 20*time.Second, "how often two registry edits race (0: never)")
	flag.DurationVar(&cfg.Flood, "flood", 20*time.Second, "how long the flood of creates lasts, from 3/8 of the run")
	flag.Float64Var(&cfg.FloodRate, "flood-rate", 50, "creates per second of the flood, on top of the load")
	flag.Float64Var(&cfg.EventsRate, "events-rate", 1, "--events-on-patch-rate of the replicas")
	flag.DurationVar(&cfg.FloodP99, "flood-p99", time.Second, "the most the p99 of the webhook's own answers (posted straight to it) may be during the flood")
	flag.Parse()
	if cfg.Cut*2 >= cfg.Duration {
		fmt.Fprintf(os.Stderr, "soak: -duration %s leaves no room for a %s cut and a restart\n", cfg.Duration, cfg.Cut)
		os.Exit(2)
	}
	ok, err := run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// namespaces are the opted-in namespaces of the load, each a tenant with a
// source ConfigMap and a tenant registry.
var namespaces = []string{"soak-a", "soak-b", "soak-c"}

// tenantLabel marks a namespace whose registry ConfigMaps are a tenant
// registry (issue 22 item 2); a webhook that does not ask for it ignores
// it.
const tenantLabel = "kpatch.dev/tenant-registry"

// Soak is one run: what its phases share.
type Soak struct {
	Config
	Cluster  *cluster.Cluster
	HTTP     *http.Client // trusts the replicas' serving certificate
	Edits    *Edits
	Nonce    string
	Tally    *Tally
	Replicas []*Replica
	Load     *Load
	Link     *Relay
	Watch    *Watch
	APILog   *APIServerLog
	Report   *Report
	// phase is held by the restart, the cut and the forgery, each of
	// which takes replicas away or holds them back, and tried by the edit
	// race, which needs both replicas as they are.
	phase sync.Mutex
}

func run(ctx context.Context, cfg Config) (_ bool, err error) {
	dir, err := os.MkdirTemp("", "kpatch-soak")
	if err != nil {
		return false, err
	}
	// the logs stay when the soak fails or cannot run
	keep := true
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w (logs of kube-apiserver and the replicas: %s)", err, dir)
		} else if !keep {
			_ = os.RemoveAll(dir)
		}
	}()
	apiLog, err := NewAPIServerLog(filepath.Join(dir, "kube-apiserver.log"))
	if err != nil {
		return false, err
	}
	defer apiLog.Close()
	step("starting kube-apiserver and etcd")
	c, err := cluster.Start(ctx, cluster.Options{APIServerOutput: apiLog})
	if err != nil {
		return false, err
	}
	defer c.Stop()
	s := &Soak{Config: cfg, Cluster: c, HTTP: c.HTTPClient(), Nonce: newNonce(), Tally: NewTally(), APILog: apiLog,
		Report: &Report{Config: cfg, Dir: dir}}
	if err := setup(ctx, c.Client, s.Nonce); err != nil {
		return false, err
	}
	s.Edits = NewEdits(time.Now())

	step("building the webhook")
	bin, err := c.BuildWebhook()
	if err != nil {
		return false, err
	}
	// the replicas reach the API server through a link the soak cuts
	api, err := url.Parse(c.Config.Host)
	if err != nil {
		return false, err
	}
	if s.Link, err = NewRelay("127.0.0.1:0", nil, api.Host); err != nil {
		return false, err
	}
	defer s.Link.Close()
	// the API server calls the replicas through a relay on the port of the
	// webhook configuration, as through a Service
	portA, errA := cluster.FreePort()
	portB, errB := cluster.FreePort()
	if err := errors.Join(errA, errB); err != nil {
		return false, err
	}
	args := []string{"--leader-elect", "--leader-election-id", "soak", "--last-good-configmap", lastGoodStore,
		"--operations", "CREATE,UPDATE", "--tenant-registries",
		"--events-on-patch", "--events-on-patch-rate", strconv.FormatFloat(cfg.EventsRate, 'g', -1, 64)}
	step("starting two replicas")
	for i, name := range []string{"a", "b"} {
		user, kubeconfig, err := replicaUser(ctx, c, name, dir, "https://"+s.Link.Addr)
		if err != nil {
			return false, err
		}
		r, err := StartReplica(ctx, c, bin, name, user, kubeconfig, []int{portA, portB}[i], filepath.Join(dir, "webhook-"+name+".log"), args...)
		if err != nil {
			return false, err
		}
		defer r.Stop()
		s.Replicas = append(s.Replicas, r)
	}
	front, err := NewRelay(fmt.Sprintf("127.0.0.1:%d", c.Port), func(i int) bool { return s.Replicas[i].Serving() },
		fmt.Sprintf("127.0.0.1:%d", portA), fmt.Sprintf("127.0.0.1:%d", portB))
	if err != nil {
		return false, err
	}
	defer front.Close()
	if err := waitFor(time.Minute, func() error {
		if !s.Replicas[0].Log.Leading() && !s.Replicas[1].Log.Leading() {
			return errors.New("no replica leads")
		}
		for _, r := range s.Replicas {
			if v, err := probe(s.HTTP, r, namespaces[0], s.Nonce); err != nil || v != 0 {
				return fmt.Errorf("replica %s answers version %d: %v", r.Name, v, err)
			}
		}
		return nil
	}); err != nil {
		return false, fmt.Errorf("before the load: %w", err)
	}

	rep := s.Report
	rep.LoadBefore = loadAverage()
	warnings := &Warnings{}
	loadConfig := rest.CopyConfig(c.Config)
	loadConfig.WarningHandlerWithContext = warnings
	// the default of client-go (5 requests a second) would pace the load
	loadConfig.QPS, loadConfig.Burst = 1000, 1000
	loadClient, err := client.New(loadConfig, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		return false, err
	}
	s.Load = &Load{Client: loadClient, Namespaces: namespaces, Nonce: s.Nonce, Edits: s.Edits, Tally: s.Tally, MaxStale: cfg.MaxStale}
	slow := &SlowBodies{}
	step(fmt.Sprintf("soaking for %s", cfg.Duration))
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	apiLog.Track()
	start := time.Now()
	rep.Start = start
	var wg sync.WaitGroup
	tokens := make(chan struct{})
	wg.Go(func() { pace(loadCtx, cfg.Rate, tokens) })
	wg.Go(func() { s.edit(loadCtx) })
	wg.Go(func() { s.Load.Run(loadCtx, cfg.Workers, tokens) })
	wg.Go(func() {
		forge(loadCtx, s.HTTP, s.Replicas, namespaces, s.Nonce, time.Duration(float64(time.Second)/cfg.ForgedRate), s.Tally)
	})
	wg.Go(func() { slow.Hold(loadCtx, cfg.Slow, s.Replicas, c.CAData) })
	wg.Go(func() { rep.RSS = sampleRSS(loadCtx, start, 5*time.Second, s.Replicas) })
	s.Watch = &Watch{Replicas: s.Replicas, Tally: s.Tally}
	wg.Go(func() { s.Watch.Run(loadCtx, time.Second) })

	// a quarter in: restart the leader, kept from the registry at first;
	// the other replica takes the lease
	sleepUntil(ctx, start.Add(cfg.Duration/4))
	s.restart(ctx)

	// three eighths in: a flood of creates, each a Patched Event
	sleepUntil(ctx, start.Add(cfg.Duration*3/8))
	s.flood(ctx)

	// half-way: cut the replicas off the API server
	sleepUntil(ctx, start.Add(cfg.Duration/2))
	s.cut(ctx)

	// three quarters in: plant a forged last good version while no
	// replica runs
	sleepUntil(ctx, start.Add(cfg.Duration*3/4))
	s.forgery(ctx)

	sleepUntil(ctx, start.Add(cfg.Duration))
	stopLoad()
	wg.Wait()
	rep.Elapsed = time.Since(start)
	rep.LoadAfter = loadAverage()
	step("checking the stored objects and the Events")
	if rep.Swept, err = s.Load.Sweep(ctx); err != nil {
		s.Tally.Violate("sweeping the stored objects: %v", err)
	}
	s.patchEvents(ctx)
	rep.Versions, _ = s.Edits.Latest()
	rep.Staleness, rep.CutStaleness = s.Load.Staleness()
	rep.Operations, rep.Updated = s.Load.Operations, s.Load.Updated
	rep.Slow = slow
	rep.Front = front
	rep.APIRefused, rep.APIUnreachable, rep.APIFailedBefore = apiLog.Failed()
	rep.APIMetrics = apiServerMetrics(ctx, c)
	rep.Warnings, rep.WarningCount = warnings.Top(5)
	for _, r := range s.Replicas {
		e, l := r.Log.Terms()
		rep.Terms = append(rep.Terms, fmt.Sprintf("%s: elected %d, terms ended %d", r.Name, e, l))
	}
	rep.CutChecks, rep.ReadyFailures = s.Watch.CutChecks.Load(), s.Watch.Failed.Load()
	for _, line := range rep.APIRefused {
		s.Tally.Violate("the API server refused an answer: %s", line)
	}
	ok := rep.Print(os.Stdout, s.Tally)
	if ok {
		keep = false
	} else {
		fmt.Printf("logs of kube-apiserver and the replicas: %s\n", dir)
	}
	return ok, nil
}

// setup creates the tenant namespaces (opted in, marked as tenants), their
// source ConfigMaps and tenant registries, and the registry at version 0.
func setup(ctx context.Context, c client.Client, nonce string) error {
	var objs []client.Object
	for _, ns := range namespaces {
		objs = append(objs,
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{cluster.InjectLabel: "enabled", tenantLabel: "enabled"}}},
			&corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: sourceName, Namespace: ns, Labels: map[string]string{"kpatch.dev/source": "true"}},
				Data:       map[string]string{"owner": ownerMark(ns, nonce)},
			},
			&corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: tenantRegistry, Namespace: ns, Labels: map[string]string{"kpatch.dev/registry": "true"}},
				Data:       map[string]string{"tenant.kpatch": tenantFile(ns, nonce)},
			})
	}
	objs = append(objs, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: registryName, Namespace: cluster.RegistryNamespace, Labels: map[string]string{"kpatch.dev/registry": "true"}},
		Data:       map[string]string{versionFileKey: versionFile(0), ownerFileKey: ownerFile, updateOnlyKey: updateOnlyFile},
	})
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %s %s/%s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetNamespace(), o.GetName(), err)
		}
	}
	return nil
}

// edit writes the next version of the registry every second until ctx
// ends; every RaceEvery, when no phase runs and both replicas serve, two
// edits race instead (race).
func (s *Soak) edit(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	nextRace := time.Now().Add(s.RaceEvery)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if s.RaceEvery > 0 && !time.Now().Before(nextRace) && s.phase.TryLock() {
			if s.Replicas[0].Serving() && s.Replicas[1].Serving() {
				s.race(ctx)
				nextRace = time.Now().Add(s.RaceEvery)
			}
			s.phase.Unlock()
			continue
		}
		s.editOnce(ctx)
	}
}

// editOnce writes the next version of the registry.
func (s *Soak) editOnce(ctx context.Context) {
	var cm corev1.ConfigMap
	if err := s.Cluster.Client.Get(ctx, client.ObjectKey{Namespace: cluster.RegistryNamespace, Name: registryName}, &cm); err != nil {
		s.Report.EditErrors.Add(1)
		return
	}
	v := s.Edits.Begin(time.Now())
	cm.Data[versionFileKey] = versionFile(v)
	if err := s.Cluster.Client.Update(ctx, &cm); err != nil {
		s.Edits.Fail(v)
		s.Report.EditErrors.Add(1)
		return
	}
	s.Edits.End(v, time.Now(), cm.ResourceVersion)
}

// pace puts rate tokens a second into tokens until ctx ends.
func pace(ctx context.Context, rate float64, tokens chan<- struct{}) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		select {
		case tokens <- struct{}{}:
		case <-ctx.Done():
			return
		default: // the writers are behind: the token is lost
		}
	}
}

// writeKubeconfig copies the kubeconfig from to to, with every cluster's
// server replaced by server.
func writeKubeconfig(from, to, server string) error {
	cfg, err := clientcmd.LoadFromFile(from)
	if err != nil {
		return err
	}
	for _, cl := range cfg.Clusters {
		cl.Server = server
	}
	return clientcmd.WriteToFile(*cfg, to)
}

func newNonce() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// waitFor retries check every 200 ms until it passes or timeout ends.
func waitFor(timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s: %w", timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func sleepUntil(ctx context.Context, t time.Time) {
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(t)):
	}
}

// loadAverage is the machine's load average over one, five and fifteen
// minutes.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	var one, five, fifteen float64
	if _, err := fmt.Sscan(string(b), &one, &five, &fifteen); err != nil {
		return "?"
	}
	return strconv.FormatFloat(one, 'f', 2, 64) + " " + strconv.FormatFloat(five, 'f', 2, 64) + " " + strconv.FormatFloat(fifteen, 'f', 2, 64)
}

func step(s string) { fmt.Fprintf(os.Stderr, "soak: %s: %s\n", time.Now().Format("15:04:05"), s) }
