// Command benche2e compares, on the real control plane (kube-apiserver and
// etcd started by test/cluster), what the same mutation costs a
// server-side dry-run create of a realistic Deployment in four
// namespaces: one that nothing mutates (the floor), one where an
// in-process MutatingAdmissionPolicy applies the change, one where a
// webhook served by this command answers every review with a fixed
// JSONPatch of the change after reading only its uid (fixed: the cost of
// any webhook on this API server), and one where the kpatch webhook
// applies it from a registry file. The scenarios are measured
// interleaved, one request each per iteration in a rotating order, so
// that the machine's noise hits them alike. It prints the latency
// percentiles of each, their ratios (webhook / fixed among them), and the
// webhook's own server-side mean from its metrics and, from the API
// server's metrics, its mean call of each webhook (the round trip as the
// API server sees it). -profile PATH saves the webhook's CPU profile over
// the measured iterations. -compare NAME=BINARY
// measures another build of cmd/webhook beside the webhook, in a
// namespace of its own, with the same registry file: two builds compared
// in one run meet the same noise.
//
//	go run ./test/benche2e [-n 500] [-warmup 50] [-map-patch-type JSONPatch] [-profile PATH] [-compare NAME=BINARY]...    (make bench-e2e)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// deploymentFile is the Deployment every scenario creates: the one of the
// engine's and the load tool's benchmarks.
const deploymentFile = "pkg/kpatch/testdata/bench/deployment.json"

// options are the command's flags.
type options struct {
	n, warmup int
	// mapPatchType is the MutatingAdmissionPolicy's form of the change.
	mapPatchType admissionregistrationv1.PatchType
	// compare are other builds of the webhook, measured beside it.
	compare builds
	// profile is where the webhook's CPU profile of the measured
	// iterations goes ("": none).
	profile string
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 500, "measured dry-run creates per scenario")
	flag.IntVar(&o.warmup, "warmup", 50, "unmeasured dry-run creates per scenario before measuring")
	flag.StringVar((*string)(&o.mapPatchType), "map-patch-type", string(admissionregistrationv1.PatchTypeJSONPatch),
		"how the MutatingAdmissionPolicy makes the change: JSONPatch or ApplyConfiguration")
	flag.StringVar(&o.profile, "profile", "", "save the webhook's CPU profile of the measured iterations to this file (go tool pprof)")
	flag.Var(&o.compare, "compare", "NAME=BINARY: another build of cmd/webhook, measured beside the webhook as scenario NAME (repeatable)")
	flag.Parse()
	if err := o.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "benche2e:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "benche2e:", err)
		stop()
		os.Exit(1)
	}
}

// extraFlags are the -profile and -compare flags as given.
func (o options) extraFlags() string {
	var s strings.Builder
	if o.profile != "" {
		fmt.Fprintf(&s, " -profile %s", o.profile)
	}
	for _, c := range o.compare {
		fmt.Fprintf(&s, " -compare %s=%s", c.name, c.binary)
	}
	return s.String()
}

func (o options) validate() error {
	if o.n < 1 || o.warmup < 0 {
		return errors.New("-n must be at least 1 and -warmup at least 0")
	}
	if o.profile != "" && o.warmup < 1 {
		return errors.New("-profile needs a warm-up (-warmup at least 1): its length is timed from it")
	}
	_, err := mutation(o.mapPatchType)
	return err
}

func run(ctx context.Context, o options) (err error) {
	deployment, err := os.ReadFile(deploymentFile)
	if err != nil {
		return fmt.Errorf("%w (run from the repository root)", err)
	}
	b, err := startBench(ctx, deployment, o.mapPatchType, o.compare, o.profile != "")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, b.stop()) }()

	fmt.Printf("# go run ./test/benche2e -n %d -warmup %d -map-patch-type %s%s\n", o.n, o.warmup, o.mapPatchType, o.extraFlags())
	fmt.Printf("kube-apiserver %s, %d-byte Deployment, %d dry-run creates per scenario after %d of warm-up, interleaved\n\n",
		b.serverVersion, len(deployment), o.n, o.warmup)
	warmStart := time.Now()
	if _, err := b.measure(ctx, o.warmup); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	var profiled <-chan error
	if o.profile != "" {
		perIteration := time.Since(warmStart) / time.Duration(o.warmup)
		profiled = cpuProfile(ctx, b.webhook, profileSeconds(perIteration, o.n), o.profile)
	}
	callsBefore, callErr := b.scrapeWebhookCalls(ctx)
	token, scrapeErr := b.cluster.MetricsToken(ctx)
	before, err1 := scrapeWebhookLatency(ctx, b.cluster, b.webhook, token)
	scrapeErr = errors.Join(scrapeErr, err1)
	// the webhook process's CPU time, all of it: TLS, HTTP, decoding,
	// patching, and what runs beside (informers, the two scrapes)
	cpuBefore, err3 := b.webhook.CPUSeconds()
	results, err := b.measure(ctx, o.n)
	if err != nil {
		return err
	}
	cpuAfter, err4 := b.webhook.CPUSeconds()
	after, err2 := scrapeWebhookLatency(ctx, b.cluster, b.webhook, token)
	callsAfter, err5 := b.scrapeWebhookCalls(ctx)
	report(os.Stdout, results, b.builds, serverSide(before, after, cpuBefore, cpuAfter, errors.Join(scrapeErr, err2, err3, err4)),
		webhookCalls(callsBefore, callsAfter, b.webhookNames(), errors.Join(callErr, err5)))
	if profiled != nil {
		if err := <-profiled; err != nil {
			return err
		}
		fmt.Printf("the webhook's CPU profile of the measured iterations: %s (go tool pprof -top %s)\n", o.profile, o.profile)
	}
	return nil
}
