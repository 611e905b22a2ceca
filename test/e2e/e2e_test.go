// Package e2e tests the kpatch webhook, run as its binary, on a real
// kube-apiserver and etcd: a MutatingWebhookConfiguration sends it every
// Deployment, Pod, Service and ConfigMap created in opted-in namespaces.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"kpatch.dev/kpatch/test/cluster"
)

var (
	env     *cluster.Cluster
	webhook *cluster.Webhook
	logs    lockedBuffer
	// webhookBin is the built webhook binary, for tests that start more.
	webhookBin string
)

func TestMain(m *testing.M) {
	if reason := cluster.SkipReason(); reason != "" {
		fmt.Println("e2e:", reason)
		os.Exit(0)
	}
	// the tests read the webhook's log (logs), not controller-runtime's
	// clients': without a logger set, controller-runtime prints a stack
	// trace saying so in the middle of the suite's output
	ctrllog.SetLogger(logr.Discard())
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx := context.Background()
	var err error
	// The configuration excludes kube-system only, so that the webhook's
	// own refusal of the registry namespace is what the tests see.
	if env, err = cluster.Start(ctx, cluster.Options{ExcludeNamespaces: []string{"kube-system"}, AuditLog: true}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer env.Stop()
	if webhookBin, err = env.BuildWebhook(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if webhook, err = env.StartWebhook(ctx, webhookBin, 0, &logs); err != nil {
		fmt.Fprintln(os.Stderr, err, "\n", logs.String())
		return 1
	}
	defer webhook.Stop()
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "webhook log:\n%s\n", logs.String())
	}
	return code
}

// lockedBuffer collects the webhook's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// registry creates or updates a registry ConfigMap.
func registry(t *testing.T, name string, data map[string]string) {
	t.Helper()
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: cluster.RegistryNamespace, Labels: map[string]string{"kpatch.dev/registry": "true"}}, Data: data}
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

func namespace(t *testing.T, name string, inject bool) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if inject {
		ns.Labels = map[string]string{cluster.InjectLabel: "enabled"}
	}
	if err := env.Client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func deployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.25"}}},
			},
		},
	}
}

// eventually retries check until it passes or the timeout ends, then
// fails with its last error.
func eventually(t *testing.T, timeout time.Duration, check func() error) time.Duration {
	t.Helper()
	start := time.Now()
	var err error
	for time.Since(start) < timeout {
		if err = check(); err == nil {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("not within %s: %v", timeout, err)
	return 0
}

// dryRunCreate creates obj with dryRun=All and returns what the API server
// would have stored.
func dryRunCreate(obj client.Object) error {
	return env.Client.Create(context.Background(), obj, client.DryRunAll)
}

func TestPatchedInOptedInNamespaceOnly(t *testing.T) {
	registry(t, "basic", map[string]string{
		"app.kpatch": "[deployment.web]\nreplicas: 3\nlabels.patched: \"yes\"\n\n[deployment.web.containers.name=app]\nimage.tag: \"1.27\"\n",
	})
	namespace(t, "opted-in", true)
	namespace(t, "opted-out", false)
	eventually(t, 10*time.Second, func() error {
		d := deployment("opted-in", "web")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if d.Labels["patched"] != "yes" {
			return fmt.Errorf("not patched yet")
		}
		return nil
	})

	ctx := context.Background()
	d := deployment("opted-in", "web")
	if err := env.Client.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	var stored appsv1.Deployment
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(d), &stored); err != nil {
		t.Fatal(err)
	}
	if *stored.Spec.Replicas != 3 || stored.Labels["patched"] != "yes" || stored.Spec.Template.Spec.Containers[0].Image != "nginx:1.27" {
		t.Errorf("stored deployment not patched: replicas %d, labels %v, image %s", *stored.Spec.Replicas, stored.Labels, stored.Spec.Template.Spec.Containers[0].Image)
	}

	other := deployment("opted-out", "web")
	if err := env.Client.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(other), &stored); err != nil {
		t.Fatal(err)
	}
	if *stored.Spec.Replicas != 1 || stored.Labels["patched"] != "" {
		t.Errorf("deployment in an unlabelled namespace was patched: %v", stored.Labels)
	}
}

func TestDryRunIsPatchedAndNotStored(t *testing.T) {
	registry(t, "dryrun", map[string]string{"dry.kpatch": "[deployment.dry]\nannotations.dry: run\n"})
	namespace(t, "dry", true)
	var d *appsv1.Deployment
	eventually(t, 10*time.Second, func() error {
		d = deployment("dry", "dry")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if d.Annotations["dry"] != "run" {
			return fmt.Errorf("dry-run response not patched: %v", d.Annotations)
		}
		return nil
	})
	err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(d), &appsv1.Deployment{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("a dry-run create was stored: %v", err)
	}
}

func TestEditTakesEffectAndBrokenEditKeepsLastGood(t *testing.T) {
	namespace(t, "edits", true)
	replicasOf := func() (int32, error) {
		d := deployment("edits", "edited")
		if err := dryRunCreate(d); err != nil {
			return 0, err
		}
		return *d.Spec.Replicas, nil
	}
	want := func(n int32) func() error {
		return func() error {
			got, err := replicasOf()
			if err == nil && got != n {
				err = fmt.Errorf("replicas %d, want %d", got, n)
			}
			return err
		}
	}
	registry(t, "edits", map[string]string{"edit.kpatch": "[edits/deployment.edited]\nreplicas: 2\n"})
	eventually(t, 10*time.Second, want(2))

	registry(t, "edits", map[string]string{"edit.kpatch": "[edits/deployment.edited]\nreplicas: 4\n"})
	took := eventually(t, 2*time.Second, want(4))
	t.Logf("the edit took effect after %s", took)

	registry(t, "edits", map[string]string{"edit.kpatch": "[edits/deployment.edited\nreplicas 5\n"})
	var event eventsv1.Event
	eventually(t, 10*time.Second, func() error {
		var list eventsv1.EventList
		if err := env.Client.List(context.Background(), &list, client.InNamespace(cluster.RegistryNamespace)); err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "edits" && e.Reason == "PatchCompileFailed" {
				event = e
				return nil
			}
		}
		return fmt.Errorf("no PatchCompileFailed event among %d", len(list.Items))
	})
	if event.Type != corev1.EventTypeWarning || !strings.Contains(event.Note, "edit.kpatch:1:1") || !strings.Contains(event.Note, "last good version still applies") {
		t.Errorf("event %s: %q", event.Type, event.Note)
	}
	// the last good version still applies
	if got, err := replicasOf(); err != nil || got != 4 {
		t.Errorf("after a broken edit: replicas %d (%v), want the last good 4", got, err)
	}
	if !strings.Contains(logs.String(), "registry file does not compile") {
		t.Error("the broken edit was not logged")
	}
	if m := metrics(t); !strings.Contains(m, "kpatch_registry_compile_errors_total 1") && !strings.Contains(m, "kpatch_registry_compile_errors_total 2") {
		t.Errorf("compile errors metric:\n%s", grep(m, "kpatch_registry_compile_errors_total"))
	}
}

func TestFailingFileWarnsAndOthersApply(t *testing.T) {
	registry(t, "warn", map[string]string{
		"a-fails.kpatch": "[deployment.warned]\nreplicas: 6\ncontainers[name=missing].image: x\n",
		"b-works.kpatch": "[deployment.warned]\nlabels.b: works\n",
	})
	namespace(t, "warn", true)
	var warnings warningRecorder
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = &warnings
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	var d *appsv1.Deployment
	eventually(t, 10*time.Second, func() error {
		d = deployment("warn", "warned")
		if err := c.Create(context.Background(), d, client.DryRunAll); err != nil {
			return err
		}
		if d.Labels["b"] != "works" {
			return fmt.Errorf("b not applied yet")
		}
		return nil
	})
	if *d.Spec.Replicas != 1 {
		t.Errorf("the failing file's replicas leaked: %d", *d.Spec.Replicas)
	}
	if w := warnings.String(); !strings.Contains(w, "warn/a-fails.kpatch:3: not applied") {
		t.Errorf("warnings %q", w)
	}
}

func TestRegistryNamespaceNeverPatched(t *testing.T) {
	// Opt the registry namespace in: the configuration sends its objects,
	// and the webhook itself must leave them alone.
	var ns corev1.Namespace
	ctx := context.Background()
	if err := env.Client.Get(ctx, client.ObjectKey{Name: cluster.RegistryNamespace}, &ns); err != nil {
		t.Fatal(err)
	}
	ns.Labels[cluster.InjectLabel] = "enabled"
	if err := env.Client.Update(ctx, &ns); err != nil {
		t.Fatal(err)
	}
	registry(t, "self", map[string]string{"cm.kpatch": "[configmap.*]\nlabels.touched: \"yes\"\n"})
	namespace(t, "control", true)
	eventually(t, 10*time.Second, func() error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: "control"}}
		if err := dryRunCreate(cm); err != nil {
			return err
		}
		if cm.Labels["touched"] != "yes" {
			return fmt.Errorf("control ConfigMap not patched yet")
		}
		return nil
	})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: cluster.RegistryNamespace}}
	if err := dryRunCreate(cm); err != nil {
		t.Fatal(err)
	}
	if cm.Labels["touched"] != "" {
		t.Error("an object in the registry namespace was patched")
	}
}

func TestReadinessOnTLSListener(t *testing.T) {
	resp, err := env.HTTPClient().Get(fmt.Sprintf("https://127.0.0.1:%d/readyz", webhook.Port))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz on the webhook port: %s", resp.Status)
	}
}

func TestMetrics(t *testing.T) {
	registry(t, "metrics", map[string]string{"m.kpatch": "[deployment.counted]\nlabels.counted: \"yes\"\n", "dead.kpatch": "[deployment.no-such-name]\nreplicas: 2\n"})
	namespace(t, "metrics", true)
	eventually(t, 10*time.Second, func() error {
		d := deployment("metrics", "counted")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if d.Labels["counted"] != "yes" {
			return fmt.Errorf("not patched yet")
		}
		return nil
	})
	m := metrics(t)
	for _, name := range []string{
		"kpatch_apply_duration_seconds_bucket", "kpatch_admission_requests_total{result=\"mutated\"}",
		"kpatch_registry_active_files", "kpatch_registry_failing_files", "kpatch_registry_last_sync_timestamp_seconds",
		`kpatch_internal_errors_total{reason="decode"} 0`, `kpatch_panics_total{scope="file"} 0`,
		// a file that never matches an object shows as zeros
		`kpatch_file_applications_total{file="metrics/dead.kpatch",result="patched"} 0`,
	} {
		if !strings.Contains(m, name) {
			t.Errorf("metric %s missing", name)
		}
	}
	if patched := grep(m, `kpatch_file_applications_total{file="metrics/m.kpatch",result="patched"}`); patched == "" || strings.HasSuffix(patched, " 0") {
		t.Errorf("the patched file's counter: %q", patched)
	}
}

// metrics scrapes the webhook's metrics as a reader the API server
// authorizes.
func metrics(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	token, err := env.MetricsToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	code, body, err := env.Scrape(ctx, webhook, token)
	if err != nil || code != http.StatusOK {
		t.Fatalf("scraping the metrics: %d %v\n%.300s", code, err, body)
	}
	return body
}

func grep(text, word string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, word) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// warningRecorder keeps the API server's warnings.
type warningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warnings = append(w.warnings, text)
}

func (w *warningRecorder) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.warnings, "\n")
}

// TestYAMLStrategicSidecar adds a sidecar through a YAML strategic merge
// patch held in a registry ConfigMap.
func TestYAMLStrategicSidecar(t *testing.T) {
	registry(t, "sidecar", map[string]string{"sidecar.yaml": `- target: deployment.with-sidecar
  type: strategic
  patch:
    spec:
      template:
        spec:
          containers:
          - name: app
            resources: {limits: {cpu: 500m}}
          - name: envoy
            image: envoyproxy/envoy:v1.30.1
`})
	namespace(t, "sidecar", true)
	eventually(t, 10*time.Second, func() error {
		d := deployment("sidecar", "with-sidecar")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		c := d.Spec.Template.Spec.Containers
		if len(c) != 2 {
			return fmt.Errorf("%d containers", len(c))
		}
		if c[0].Name != "app" || c[0].Resources.Limits.Cpu().String() != "500m" || c[1].Name != "envoy" {
			return fmt.Errorf("containers %+v", c)
		}
		return nil
	})
}

// TestConflictIsReportedAndLaterFileWins registers two files that set the
// same field differently: an Event on the winner's ConfigMap, the metric,
// and the later file's value applies.
func TestConflictIsReportedAndLaterFileWins(t *testing.T) {
	registry(t, "conflict-a", map[string]string{"a.kpatch": "[conflicts/deployment.conflicted]\nreplicas: 2\n"})
	registry(t, "conflict-b", map[string]string{"b.yaml": "- target: conflicts/deployment.conflicted\n  patch: {replicas: 3}\n"})
	namespace(t, "conflicts", true)
	eventually(t, 10*time.Second, func() error {
		d := deployment("conflicts", "conflicted")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if *d.Spec.Replicas != 3 {
			return fmt.Errorf("replicas %d, want the later file's 3", *d.Spec.Replicas)
		}
		return nil
	})
	eventually(t, 10*time.Second, func() error {
		var list eventsv1.EventList
		if err := env.Client.List(context.Background(), &list, client.InNamespace(cluster.RegistryNamespace)); err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "conflict-b" && e.Reason == "PatchConflict" && strings.Contains(e.Note, "conflict-a/a.kpatch:2:1") {
				return nil
			}
		}
		return fmt.Errorf("no PatchConflict event")
	})
	if m := metrics(t); !strings.Contains(m, "kpatch_registry_conflicts") {
		t.Error("no conflicts metric")
	}
}
