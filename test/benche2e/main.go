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
// webhook's own server-side mean from its metrics. -compare NAME=BINARY
// measures another build of cmd/webhook beside the webhook, in a
// namespace of its own, with the same registry file: two builds compared
// in one run meet the same noise.
//
//	go run ./test/benche2e [-n 500] [-warmup 50] [-map-patch-type JSONPatch] [-compare NAME=BINARY]...    (make bench-e2e)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

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
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 500, "measured dry-run creates per scenario")
	flag.IntVar(&o.warmup, "warmup", 50, "unmeasured dry-run creates per scenario before measuring")
	flag.StringVar((*string)(&o.mapPatchType), "map-patch-type", string(admissionregistrationv1.PatchTypeJSONPatch),
		"how the MutatingAdmissionPolicy makes the change: JSONPatch or ApplyConfiguration")
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

// compareFlags are the -compare flags as given.
func (o options) compareFlags() string {
	var s strings.Builder
	for _, c := range o.compare {
		fmt.Fprintf(&s, " -compare %s=%s", c.name, c.binary)
	}
	return s.String()
}

func (o options) validate() error {
	if o.n < 1 || o.warmup < 0 {
		return errors.New("-n must be at least 1 and -warmup at least 0")
	}
	_, err := mutation(o.mapPatchType)
	return err
}

func run(ctx context.Context, o options) (err error) {
	deployment, err := os.ReadFile(deploymentFile)
	if err != nil {
		return fmt.Errorf("%w (run from the repository root)", err)
	}
	b, err := startBench(ctx, deployment, o.mapPatchType, o.compare)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, b.stop()) }()

	fmt.Printf("# go run ./test/benche2e -n %d -warmup %d -map-patch-type %s%s\n", o.n, o.warmup, o.mapPatchType, o.compareFlags())
	fmt.Printf("kube-apiserver %s, %d-byte Deployment, %d dry-run creates per scenario after %d of warm-up, interleaved\n\n",
		b.serverVersion, len(deployment), o.n, o.warmup)
	if _, err := b.measure(ctx, o.warmup); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
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
	report(os.Stdout, results, b.builds, serverSide(before, after, cpuBefore, cpuAfter, errors.Join(scrapeErr, err2, err3, err4)))
	return nil
}
