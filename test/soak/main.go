// Command soak runs the webhook, as its binary in two replicas with leader
// election, under mixed load through a real kube-apiserver for a while,
// and meanwhile: edits the registry every second, restarts the leading
// replica (the other one takes the lease), holds 20 slow-body connections
// against the replicas, posts forged reviews straight to them, and cuts
// them off the API server for 30 s (their watches break, as in a
// control-plane upgrade, while the API server still calls them). It
// reports the answers per outcome, their latency, the staleness of the
// registry they carried, the replicas' resident memory over time, and
// exits non-zero when an object was admitted unpatched where the registry
// in force patches it, when the API server refused an answer, when an
// answer held another namespace's data, or when a replica stopped being
// ready or did not catch up after the cut.
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
	nonce := newNonce()
	if err := setup(ctx, c.Client, nonce); err != nil {
		return false, err
	}
	edits := NewEdits(time.Now())

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
	link, err := NewRelay("127.0.0.1:0", nil, api.Host)
	if err != nil {
		return false, err
	}
	defer link.Close()
	kubeconfig := filepath.Join(dir, "kubeconfig-via-link")
	if err := writeKubeconfig(c.Kubeconfig, kubeconfig, "https://"+link.Addr); err != nil {
		return false, err
	}
	// the API server calls the replicas through a relay on the port of the
	// webhook configuration, as through a Service
	portA, errA := cluster.FreePort()
	portB, errB := cluster.FreePort()
	if err := errors.Join(errA, errB); err != nil {
		return false, err
	}
	args := []string{"--kubeconfig", kubeconfig, "--leader-elect", "--leader-election-id", "soak", "--last-good-configmap", "soak-last-good",
		"--operations", "CREATE,UPDATE", "--tenant-registries"}
	step("starting two replicas")
	a, err := StartReplica(ctx, c, bin, "a", portA, filepath.Join(dir, "webhook-a.log"), args...)
	if err != nil {
		return false, err
	}
	defer a.Stop()
	b, err := StartReplica(ctx, c, bin, "b", portB, filepath.Join(dir, "webhook-b.log"), args...)
	if err != nil {
		return false, err
	}
	defer b.Stop()
	replicas := []*Replica{a, b}
	front, err := NewRelay(fmt.Sprintf("127.0.0.1:%d", c.Port), func(i int) bool { return replicas[i].Serving() },
		fmt.Sprintf("127.0.0.1:%d", portA), fmt.Sprintf("127.0.0.1:%d", portB))
	if err != nil {
		return false, err
	}
	defer front.Close()
	httpClient := c.HTTPClient()
	if err := waitFor(time.Minute, func() error {
		if !a.Log.Leading() && !b.Log.Leading() {
			return errors.New("no replica leads")
		}
		for _, r := range replicas {
			if v, err := probe(httpClient, r, namespaces[0], nonce); err != nil || v != 0 {
				return fmt.Errorf("replica %s answers version %d: %v", r.Name, v, err)
			}
		}
		return nil
	}); err != nil {
		return false, fmt.Errorf("before the load: %w", err)
	}

	rep := &Report{Config: cfg, Dir: dir, LoadBefore: loadAverage()}
	tally := NewTally()
	warnings := &Warnings{}
	loadConfig := rest.CopyConfig(c.Config)
	loadConfig.WarningHandlerWithContext = warnings
	// the default of client-go (5 requests a second) would pace the load
	loadConfig.QPS, loadConfig.Burst = 1000, 1000
	loadClient, err := client.New(loadConfig, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		return false, err
	}
	load := &Load{Client: loadClient, Namespaces: namespaces, Nonce: nonce, Edits: edits, Tally: tally, MaxStale: cfg.MaxStale}
	slow := &SlowBodies{}
	step(fmt.Sprintf("soaking for %s", cfg.Duration))
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	apiLog.Track()
	start := time.Now()
	rep.Start = start
	var wg sync.WaitGroup
	spawn := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	tokens := make(chan struct{})
	spawn(func() { pace(loadCtx, cfg.Rate, tokens) })
	spawn(func() { rep.EditErrors = edit(loadCtx, c.Client, edits) })
	spawn(func() { load.Run(loadCtx, cfg.Workers, tokens) })
	spawn(func() {
		forge(loadCtx, httpClient, replicas, namespaces, nonce, time.Duration(float64(time.Second)/cfg.ForgedRate), tally)
	})
	spawn(func() { slow.Hold(loadCtx, cfg.Slow, replicas, c.CAData) })
	spawn(func() { rep.RSS = sampleRSS(loadCtx, start, 5*time.Second, replicas) })
	watch := &Watch{Replicas: replicas, Tally: tally}
	spawn(func() { watch.Run(loadCtx, time.Second) })

	// a quarter in: restart the leader; the other replica takes the lease
	sleepUntil(ctx, start.Add(cfg.Duration/4))
	rep.restart(ctx, replicas, tally)

	// half-way: cut the replicas off the API server
	sleepUntil(ctx, start.Add(cfg.Duration/2))
	rep.cut(ctx, cfg, link, watch, replicas, edits, httpClient, nonce, tally)

	sleepUntil(ctx, start.Add(cfg.Duration))
	stopLoad()
	wg.Wait()
	rep.Elapsed = time.Since(start)
	rep.LoadAfter = loadAverage()
	step("checking the stored objects")
	if rep.Swept, err = load.Sweep(ctx); err != nil {
		tally.Violate("sweeping the stored objects: %v", err)
	}
	rep.Versions, _ = edits.Latest()
	rep.Staleness, rep.CutStaleness = load.Staleness()
	rep.Slow = slow
	rep.Front = front
	rep.APIRefused, rep.APIUnreachable, rep.APIFailedBefore = apiLog.Failed()
	rep.APIMetrics = apiServerMetrics(ctx, c)
	rep.Warnings, rep.WarningCount = warnings.Top(5)
	for _, r := range replicas {
		e, l := r.Log.Terms()
		rep.Terms = append(rep.Terms, fmt.Sprintf("%s: elected %d, terms ended %d", r.Name, e, l))
	}
	rep.CutChecks, rep.ReadyFailures = watch.CutChecks.Load(), watch.Failed.Load()
	for _, line := range rep.APIRefused {
		tally.Violate("the API server refused an answer: %s", line)
	}
	ok := rep.Print(os.Stdout, tally)
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
		Data:       map[string]string{versionFileKey: versionFile(0), ownerFileKey: ownerFile},
	})
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %s %s/%s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetNamespace(), o.GetName(), err)
		}
	}
	return nil
}

// edit writes the next version of the registry every second until ctx
// ends, and returns how many writes failed.
func edit(ctx context.Context, c client.Client, edits *Edits) int {
	failed := 0
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return failed
		case <-tick.C:
		}
		var cm corev1.ConfigMap
		if err := c.Get(ctx, client.ObjectKey{Namespace: cluster.RegistryNamespace, Name: registryName}, &cm); err != nil {
			failed++
			continue
		}
		v := edits.Begin(time.Now())
		cm.Data[versionFileKey] = versionFile(v)
		if err := c.Update(ctx, &cm); err != nil {
			edits.Fail(v)
			failed++
			continue
		}
		edits.End(v, time.Now())
	}
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
