// Command load measures the webhook under load: it starts a real control
// plane, two webhook processes (one with the 10-file benchmark registry of
// pkg/kpatch/testdata/bench, one with an empty registry) and sends each of
// them AdmissionReviews of a realistic Deployment over HTTPS on loopback,
// for a bounded time. It prints, for each, the saturated throughput, the
// requests per second per CPU core the webhook process used meanwhile,
// the latency percentiles at a fixed rate, and the process's resident
// memory. -rounds alternates that many throughput phases of the two
// webhooks and gives the medians, so that other work on the machine
// weighs on both alike. -extra-files adds that many files to the patched registry, each
// targeting other Deployments (a third by name, a third by name prefix, a
// third by namespace), to measure what a large registry costs.
// LOAD_CPUPROFILE=PATH and LOAD_ALLOCPROFILE=PATH save the webhook's CPU
// and allocation profiles of the last round's throughput phases, as
// PATH.empty and PATH.10-files.
//
//	go run ./test/load [-duration 10s] [-concurrency 4] [-rate 2000] [-extra-files 10000] [-rounds 3]    (make load)
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"kpatch.dev/kpatch/test/cluster"
)

const benchDir = "pkg/kpatch/testdata/bench"

func main() {
	duration := flag.Duration("duration", 10*time.Second, "how long each phase sends")
	concurrency := flag.Int("concurrency", 4, "concurrent connections in the throughput phase")
	rate := flag.Int("rate", 2000, "requests per second in the latency phase")
	extra := flag.Int("extra-files", 0, "files added to the patched registry, targeting other Deployments")
	rounds := flag.Int("rounds", 3, "throughput phases of each webhook, alternated")
	flag.Parse()
	if *rounds < 1 {
		fmt.Fprintln(os.Stderr, "load: -rounds must be at least 1")
		os.Exit(2)
	}
	if err := run(context.Background(), *duration, *concurrency, *rate, *extra, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, duration time.Duration, concurrency, rate, extra, rounds int) error {
	c, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		return err
	}
	defer c.Stop()
	files, _ := filepath.Glob(filepath.Join(benchDir, "*.kpatch"))
	data := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		data[filepath.Base(f)] = string(b)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: cluster.RegistryNamespace, Labels: map[string]string{"kpatch.dev/registry": "true"}},
		Data:       data,
	}
	if err := c.Client.Create(ctx, cm); err != nil {
		return err
	}
	for _, more := range extraRegistry(extra) {
		if err := c.Client.Create(ctx, more); err != nil {
			return err
		}
	}
	bin, err := c.BuildWebhook()
	if err != nil {
		return err
	}
	body, err := review(filepath.Join(benchDir, "deployment.json"))
	if err != nil {
		return err
	}
	client := c.HTTPClient()
	fmt.Printf("# go run ./test/load -duration %s -concurrency %d -rate %d -extra-files %d -rounds %d\n", duration, concurrency, rate, extra, rounds)
	fmt.Printf("%d patch files (+%d), %d-byte AdmissionReview, %s per phase, %d connections, latency at %d req/s, %d CPUs\n\n",
		len(files), extra, len(body), duration, concurrency, rate, runtime.NumCPU())
	targets := []*target{
		{name: "empty", args: []string{"--registry-selector", "kpatch.dev/registry=none"}},
		{name: fmt.Sprintf("%d files", len(files)+extra), patched: true},
	}
	for _, t := range targets {
		port, err := cluster.FreePort()
		if err != nil {
			return err
		}
		t.wh, err = c.StartWebhook(ctx, bin, port, &t.logs, append(t.args, "--zap-log-level", "error", "--profiling")...)
		if err != nil {
			return fmt.Errorf("%w\n%s", err, t.logs.String())
		}
		defer t.wh.Stop()
		t.url = fmt.Sprintf("https://127.0.0.1:%d%s", t.wh.Port, t.wh.Path("/mutate"))
		if err := check(client, t.url, body, t.patched); err != nil {
			return err
		}
	}
	// the throughput phases alternate between the webhooks, round after
	// round, so that the machine's other work weighs on both alike
	fmt.Printf("%-6s %-16s %12s %14s\n", "round", "registry", "max req/s", "req/s per core")
	for round := 1; round <= rounds; round++ {
		for _, t := range targets {
			if round == rounds {
				profile(t, duration)
			}
			cpuBefore, err1 := t.wh.CPUSeconds()
			throughput, errs := saturate(client, t.url, body, duration, concurrency)
			cpuAfter, err2 := t.wh.CPUSeconds()
			if err := errors.Join(err1, err2); err != nil {
				return err
			}
			t.errors += errs
			t.throughput = append(t.throughput, throughput)
			// requests per CPU-second the webhook used while saturated
			t.perCore = append(t.perCore, throughput*duration.Seconds()/(cpuAfter-cpuBefore))
			fmt.Printf("%-6d %-16s %12.0f %14.0f\n", round, t.name, throughput, t.perCore[len(t.perCore)-1])
		}
		if len(targets[0].throughput) == round {
			fmt.Printf("%-6d %-16s %11.0f%% %13.0f%%\n", round, "patched / empty",
				100*targets[1].throughput[round-1]/targets[0].throughput[round-1], 100*targets[1].perCore[round-1]/targets[0].perCore[round-1])
		}
	}
	fmt.Printf("\n%-16s %12s %14s %10s %10s %10s %10s %10s\n", "registry", "max req/s", "req/s per core", "p50", "p90", "p99", "RSS", "errors")
	for _, t := range targets {
		lat, errs := paced(client, t.url, body, duration, rate)
		rss, err := t.wh.ResidentBytes()
		if err != nil {
			return err
		}
		fmt.Printf("%-16s %12.0f %14.0f %10s %10s %10s %9.0fM %10d\n", t.name, median(t.throughput), median(t.perCore),
			pct(lat, 50), pct(lat, 90), pct(lat, 99), float64(rss)/(1<<20), t.errors+errs)
	}
	fmt.Printf("\npatched throughput: %.0f%% of the empty registry's (medians of %d rounds; per core %.0f%%)\n",
		100*median(targets[1].throughput)/median(targets[0].throughput), rounds, 100*median(targets[1].perCore)/median(targets[0].perCore))
	return nil
}

// target is one of the webhooks measured and what was measured of it.
type target struct {
	name                string
	args                []string
	patched             bool
	logs                bytes.Buffer
	wh                  *cluster.Webhook
	url                 string
	throughput, perCore []float64 // one per round
	errors              int
}

// profile saves the webhook's profiles of the coming throughput phase
// when LOAD_CPUPROFILE or LOAD_ALLOCPROFILE asks for them.
func profile(t *target, duration time.Duration) {
	if prof := os.Getenv("LOAD_CPUPROFILE"); prof != "" {
		go saveProfile(t.wh.ProfilingURL+"profile", prof+"."+strings.ReplaceAll(t.name, " ", "-"), duration)
	}
	if prof := os.Getenv("LOAD_ALLOCPROFILE"); prof != "" {
		go saveProfile(t.wh.ProfilingURL+"allocs", prof+"."+strings.ReplaceAll(t.name, " ", "-"), duration)
	}
}

// median is the median of v.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// saveProfile saves a profile of the webhook taken while it is saturated,
// for `go tool pprof`: its CPU (endpoint profile) or what it allocated
// meanwhile (endpoint allocs, the delta over the same seconds).
func saveProfile(endpoint, path string, d time.Duration) {
	url := endpoint + fmt.Sprintf("?seconds=%d", int(d.Seconds())-1)
	resp, err := http.Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	_ = os.WriteFile(path, b, 0o644)
}

// review builds the AdmissionReview body of a CREATE of the object.
func review(path string) ([]byte, error) {
	obj, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var meta struct {
		Metadata struct{ Name, Namespace string }
	}
	if err := json.Unmarshal(obj, &meta); err != nil {
		return nil, err
	}
	return json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       "load",
			Kind:      metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Resource:  metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			Name:      meta.Metadata.Name,
			Namespace: meta.Metadata.Namespace,
			Operation: admissionv1.Create,
			Object:    k8sruntime.RawExtension{Raw: obj},
		},
	})
}

// check sends one request and verifies the answer: a patch from the
// patched registry, none from the empty one.
func check(client *http.Client, url string, body []byte, wantPatch bool) error {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return err
	}
	if out.Response == nil || !out.Response.Allowed {
		return fmt.Errorf("unexpected answer: %+v", out.Response)
	}
	if got := len(out.Response.Patch) > 0; got != wantPatch {
		return fmt.Errorf("patch present %v, want %v", got, wantPatch)
	}
	return nil
}

func send(client *http.Client, url string, body []byte) error {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}

// saturate sends as fast as concurrency connections allow and returns the
// requests per second.
func saturate(client *http.Client, url string, body []byte, d time.Duration, concurrency int) (float64, int) {
	var ok, failed atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if send(client, url, body) == nil {
					ok.Add(1)
				} else {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(ok.Load()) / d.Seconds(), int(failed.Load())
}

// paced sends at a fixed rate, open loop, and returns every latency.
func paced(client *http.Client, url string, body []byte, d time.Duration, rate int) ([]time.Duration, int) {
	n := int(d.Seconds() * float64(rate))
	lat := make([]time.Duration, n)
	var failed atomic.Int64
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	for i := range n {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.Now()
			if send(client, url, body) != nil {
				failed.Add(1)
			}
			lat[i] = time.Since(t)
		}()
	}
	wg.Wait()
	return lat, int(failed.Load())
}

func pct(lat []time.Duration, p int) string {
	if len(lat) == 0 {
		return "-"
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	v := s[(len(s)-1)*p/100]
	return fmt.Sprintf("%.2fms", float64(v.Microseconds())/1000)
}
