package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"kpatch.dev/kpatch/test/cluster"
)

// scenario is one namespace the Deployment is created in.
type scenario struct {
	name      string
	namespace string
	// mutated says whether the change must show in what the create returns.
	mutated bool
	// body is the Deployment in this namespace, as sent.
	body []byte
}

// bench is the control plane, the webhook and the scenarios, ready to
// measure.
type bench struct {
	cluster    *cluster.Cluster
	webhook    *cluster.Webhook
	webhookLog bytes.Buffer
	fixed      *fixedWebhook
	builds     builds
	// profiling runs the webhook with --profiling (-profile).
	profiling     bool
	api           rest.Interface
	serverVersion string
	scenarios     []scenario
}

// startBench starts the control plane, the webhook and the fixed webhook,
// installs the registry file and the policy, and checks that each scenario changes the
// Deployment as it should.
func startBench(ctx context.Context, deployment []byte, mapPatchType admissionregistrationv1.PatchType, compare builds, profiling bool) (*bench, error) {
	c, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		return nil, err
	}
	b := &bench{cluster: c, builds: compare, profiling: profiling}
	if err := b.setUp(ctx, deployment, mapPatchType); err != nil {
		return nil, errors.Join(err, b.stop())
	}
	return b, nil
}

func (b *bench) setUp(ctx context.Context, deployment []byte, mapPatchType admissionregistrationv1.PatchType) error {
	b.scenarios = []scenario{
		{name: "floor", namespace: "bench-floor"},
		{name: "MAP", namespace: "bench-map", mutated: true},
		{name: "fixed", namespace: "bench-fixed", mutated: true},
		{name: "webhook", namespace: "bench-webhook", mutated: true},
	}
	for _, c := range b.builds {
		b.scenarios = append(b.scenarios, scenario{name: c.name, namespace: "bench-" + c.name, mutated: true})
	}
	for i := range b.scenarios {
		s := &b.scenarios[i]
		if err := b.createNamespace(ctx, s.namespace, s.name == "webhook"); err != nil {
			return err
		}
		var err error
		if s.body, err = inNamespace(deployment, s.namespace); err != nil {
			return err
		}
	}
	if err := b.createRegistry(ctx); err != nil {
		return err
	}
	if err := installPolicy(ctx, b.cluster.Client, "bench-map", mapPatchType); err != nil {
		return err
	}
	if err := b.startWebhook(ctx); err != nil {
		return err
	}
	if err := b.startFixedWebhook(ctx, deployment, "bench-fixed"); err != nil {
		return err
	}
	if err := b.startBuilds(ctx); err != nil {
		return err
	}
	if err := b.connect(); err != nil {
		return err
	}
	for _, s := range b.scenarios {
		if err := b.waitForChange(ctx, s, 30*time.Second); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

func (b *bench) createNamespace(ctx context.Context, name string, inject bool) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if inject {
		ns.Labels = map[string]string{cluster.InjectLabel: "enabled"}
	}
	return b.cluster.Client.Create(ctx, ns)
}

func (b *bench) createRegistry(ctx context.Context) error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: "bench-change", Namespace: cluster.RegistryNamespace,
			Labels: map[string]string{"kpatch.dev/registry": "true"},
		},
		Data: map[string]string{"change.kpatch": registryFile},
	}
	return b.cluster.Client.Create(ctx, cm)
}

func (b *bench) startWebhook(ctx context.Context) error {
	bin, err := b.cluster.BuildWebhook()
	if err != nil {
		return err
	}
	// Errors only, as test/load runs it: the figure is the admission path.
	flags := []string{"--zap-log-level", "error"}
	if b.profiling {
		flags = append(flags, "--profiling")
	}
	b.webhook, err = b.cluster.StartWebhook(ctx, bin, 0, &b.webhookLog, flags...)
	if err != nil {
		return fmt.Errorf("%w\n%s", err, b.webhookLog.String())
	}
	return nil
}

// webhookNames are the names of the measured scenarios' webhooks, as the
// API server's metrics label their calls.
func (b *bench) webhookNames() map[string]string {
	names := map[string]string{"fixed": benchWebhookName("bench-fixed"), "webhook": cluster.WebhookName}
	for _, c := range b.builds {
		names[c.name] = benchWebhookName("bench-" + c.name)
	}
	return names
}

// scrapeWebhookCalls reads callMetric from the API server's own metrics,
// per webhook.
func (b *bench) scrapeWebhookCalls(ctx context.Context) (map[string]histogramTotals, error) {
	body, err := b.api.Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("the API server's metrics: %w", err)
	}
	return parseHistogramByLabel(bytes.NewReader(body), callMetric, "name")
}

// connect makes the client of the measured requests: raw bytes in and
// out, no client-side rate limit.
func (b *bench) connect() error {
	cfg := rest.CopyConfig(b.cluster.Config)
	cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	v, err := clientset.Discovery().ServerVersion()
	if err != nil {
		return err
	}
	b.serverVersion, b.api = v.GitVersion, clientset.AppsV1().RESTClient()
	return nil
}

// waitForChange dry-runs creates in s until the change shows (or, for the
// floor, checks once that it does not): the registry and the policy reach
// the webhook and the API server's admission through informers.
func (b *bench) waitForChange(ctx context.Context, s scenario, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		body, err := b.dryRunCreate(ctx, s)
		if err == nil {
			err = checkChange(body, s.mutated)
		}
		if err == nil || !s.mutated || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// dryRunCreate sends the scenario's Deployment as a server-side dry-run
// create and returns what the API server answered.
func (b *bench) dryRunCreate(ctx context.Context, s scenario) ([]byte, error) {
	return b.api.Post().Namespace(s.namespace).Resource("deployments").
		Param("dryRun", metav1.DryRunAll).SetHeader("Content-Type", "application/json").
		Body(s.body).Do(ctx).Raw()
}

func (b *bench) stop() error {
	if b.webhook != nil {
		b.webhook.Stop()
	}
	for _, c := range b.builds {
		if c.webhook != nil {
			c.webhook.Stop()
		}
	}
	var err error
	if b.fixed != nil {
		err = b.fixed.stop()
	}
	return errors.Join(err, b.cluster.Stop())
}

// inNamespace returns the object with its metadata.namespace set to ns.
func inNamespace(object []byte, ns string) ([]byte, error) {
	var obj map[string]any
	if err := json.Unmarshal(object, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", deploymentFile, err)
	}
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: no metadata", deploymentFile)
	}
	meta["namespace"] = ns
	return json.Marshal(obj)
}
