package e2e

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// ownWebhook is a webhook process with its own MutatingWebhookConfiguration
// (named name, calling it on its own port, for the namespaces labelled
// name=on) and its own registry (the ConfigMaps labelled
// kpatch.dev/registry=name): the other tests' webhook and files do not
// reach it, nor it theirs.
type ownWebhook struct {
	name string
	port int
	mwc  *admissionregistrationv1.MutatingWebhookConfiguration
	wh   *cluster.Webhook
	logs lockedBuffer
}

func newOwnWebhook(t *testing.T, name string, rules []admissionregistrationv1.RuleWithOperations) *ownWebhook {
	t.Helper()
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("https://127.0.0.1:%d/mutate", port)
	sideEffects := admissionregistrationv1.SideEffectClassNone
	ignore := admissionregistrationv1.Ignore
	o := &ownWebhook{name: name, port: port, mwc: &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "mutate.kpatch.dev",
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &sideEffects,
			FailurePolicy:           &ignore,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: env.CAData},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{name: "on"}},
			Rules:                   rules,
		}},
	}}
	if err := env.Client.Create(context.Background(), o.mwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), o.mwc) })
	return o
}

// start runs the webhook with the registry selector and extra flags, and
// waits until it is ready.
func (o *ownWebhook) start(t *testing.T, extra ...string) {
	t.Helper()
	wh, err := env.StartWebhook(context.Background(), webhookBin, o.port, &o.logs, o.args(extra)...)
	o.keep(t, wh, err)
}

// launch runs the webhook as start does, without waiting for it.
func (o *ownWebhook) launch(t *testing.T, extra ...string) {
	t.Helper()
	wh, err := env.LaunchWebhook(webhookBin, o.port, &o.logs, o.args(extra)...)
	o.keep(t, wh, err)
}

// args are the webhook's flags: extra after its own registry, last good
// store and configuration, which holds the path with its path token.
func (o *ownWebhook) args(extra []string) []string {
	return append([]string{"--registry-selector", "kpatch.dev/registry=" + o.name, "--last-good-configmap", o.name + "-last-good",
		"--webhook-configuration-name", o.name}, extra...)
}

// keep keeps the webhook started, stopped when the test ends.
func (o *ownWebhook) keep(t *testing.T, wh *cluster.Webhook, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%v\n%s", err, o.logs.String())
	}
	o.wh = wh
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("webhook %s log:\n%s", o.name, o.logs.String())
		}
		o.stop()
	})
}

// stop stops the webhook, if it runs.
func (o *ownWebhook) stop() {
	if o.wh != nil {
		o.wh.Stop()
		o.wh = nil
	}
}

// registry creates or replaces a registry ConfigMap of this webhook.
func (o *ownWebhook) registry(t *testing.T, ns, name string, data map[string]string) {
	t.Helper()
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"kpatch.dev/registry": o.name}}, Data: data}
	err := env.Client.Create(ctx, cm)
	if apierrors.IsAlreadyExists(err) {
		var cur corev1.ConfigMap
		if err = env.Client.Get(ctx, client.ObjectKeyFromObject(cm), &cur); err == nil {
			cur.Data = data
			err = env.Client.Update(ctx, &cur)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// namespace creates a namespace this webhook patches.
func (o *ownWebhook) namespace(t *testing.T, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{o.name: "on"}}}
	if err := env.Client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// requests returns kpatch_admission_requests_total, every result summed.
func (o *ownWebhook) requests(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	token, err := env.MetricsToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := env.Scrape(ctx, o.wh, token)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "kpatch_admission_requests_total{") {
			n, err := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
			if err != nil {
				t.Fatal(err)
			}
			total += int(n)
		}
	}
	return total
}

// eventOn returns the notes of the Events with reason on a ConfigMap.
func eventOn(ns, name, reason string) ([]string, error) {
	var list eventsv1.EventList
	if err := env.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	var notes []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "ConfigMap" && e.Regarding.Name == name && e.Reason == reason {
			notes = append(notes, e.Note)
		}
	}
	return notes, nil
}
