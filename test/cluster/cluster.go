// Package cluster runs the kpatch webhook, as its binary, against a real
// control plane (kube-apiserver and etcd built by `make controlplane`,
// started by controller-runtime's envtest; the kube-controller-manager
// built with them on demand, StartControllerManager). The end-to-end
// tests, the demo and the load benchmark share it.
package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// RegistryNamespace is where the registry ConfigMaps live.
const RegistryNamespace = "kpatch-system"

// InjectLabel opts a namespace in.
const InjectLabel = "kpatch.dev/inject"

// WebhookConfiguration is the name of the MutatingWebhookConfiguration
// Start installs; StartWebhook has the webhook keep its path token in it.
const WebhookConfiguration = "kpatch"

// WebhookName is the name of the webhook in the configuration Start
// installs, as the API server's metrics label its calls.
const WebhookName = "mutate.kpatch.dev"

// PathTokenSecret is the Secret of the registry namespace where the
// webhook keeps its path token (--path-token-secret's default).
const PathTokenSecret = "kpatch-webhook-path-token"

// Options configure Start.
type Options struct {
	// ControlPlaneDir holds kube-apiserver and etcd. Default:
	// $KUBEBUILDER_ASSETS, else $CONTROLPLANE_DIR, else
	// ~/.cache/kpatch/controlplane (where `make controlplane` puts them).
	ControlPlaneDir string
	// Resources are the rules of the webhook configuration; default
	// Deployments, Pods, Services and ConfigMaps.
	Rules []admissionregistrationv1.RuleWithOperations
	// ExcludeNamespaces are left out by the webhook configuration's
	// namespace selector; default the registry namespace and kube-system.
	ExcludeNamespaces []string
	// WebhookClientCertificate has the API server present a client
	// certificate to the webhook, signed by the CA of ClientCAFile.
	WebhookClientCertificate bool
	// APIServerOutput, when set, receives kube-apiserver's standard output
	// and error: its log, where a webhook call that failed open is told.
	APIServerOutput io.Writer
	// AuditLog has the API server write an audit log (Cluster.AuditLog)
	// of the writes of Deployments, Pods and ConfigMaps, at the Metadata
	// level: with the audit annotations of the webhooks that admitted
	// them.
	AuditLog bool
}

// auditPolicy is the audit policy of Options.AuditLog: the writes of
// Deployments, Pods and ConfigMaps, once complete, at the Metadata level
// (which carries the admission webhooks' audit annotations); nothing
// else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Metadata
  verbs: [create, update, patch]
  resources:
  - group: apps
    resources: [deployments]
  - group: ""
    resources: [pods, configmaps]
- level: None
`

// Cluster is a running control plane with the webhook configuration
// installed. Webhooks are started on it with StartWebhook.
type Cluster struct {
	Env    *envtest.Environment
	Config *rest.Config
	Client client.Client
	// Kubeconfig is a kubeconfig file for the control plane.
	Kubeconfig string
	// CertDir holds the webhook's serving certificate, trusted by the
	// webhook configuration; Port is where the configuration sends.
	CertDir string
	Port    int
	CAData  []byte
	// ClientCAFile, with Options.WebhookClientCertificate, is the CA of
	// the API server's client certificate, for --client-ca-file.
	ClientCAFile string
	// AuditLog, with Options.AuditLog, is the API server's audit log: a
	// JSON audit.k8s.io/v1 Event a line.
	AuditLog string
	dir      string
}

// Start starts the control plane, installs the MutatingWebhookConfiguration
// (pointing at 127.0.0.1:Port/mutate, which the webhook StartWebhook runs
// makes /mutate/<its path token>) and creates the registry namespace.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	assets := o.ControlPlaneDir
	if assets == "" {
		assets = ControlPlaneDir()
	}
	if err := Missing(assets); err != nil {
		return nil, err
	}
	if len(o.Rules) == 0 {
		o.Rules = []admissionregistrationv1.RuleWithOperations{
			rule("apps", "deployments"), rule("", "pods"), rule("", "services"), rule("", "configmaps"),
		}
	}
	if o.ExcludeNamespaces == nil {
		o.ExcludeNamespaces = []string{RegistryNamespace, "kube-system"}
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			LocalServingHost: "127.0.0.1",
			MutatingWebhooks: []*admissionregistrationv1.MutatingWebhookConfiguration{webhookConfiguration(o)},
		},
	}
	dir, err := os.MkdirTemp("", "kpatch-cluster")
	if err != nil {
		return nil, err
	}
	if o.APIServerOutput != nil {
		apiServer := env.ControlPlane.GetAPIServer()
		apiServer.Out, apiServer.Err = o.APIServerOutput, o.APIServerOutput
	}
	var auditLog string
	if o.AuditLog {
		policy := filepath.Join(dir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		auditLog = filepath.Join(dir, "audit.log")
		env.ControlPlane.GetAPIServer().Configure().
			Set("audit-policy-file", policy).
			Set("audit-log-path", auditLog).
			Set("audit-log-format", "json")
	}
	// the webhook's port, out of the range of outgoing connections
	// (FreePort), rather than envtest's pick
	if env.WebhookInstallOptions.LocalServingPort, err = FreePort(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	var clientCA string
	if o.WebhookClientCertificate {
		if clientCA, err = clientAuth(env, dir, env.WebhookInstallOptions.LocalServingPort); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("the API server's client certificate: %w", err)
		}
	}
	cfg, err := env.Start()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	c := &Cluster{Env: env, Config: cfg, CertDir: env.WebhookInstallOptions.LocalServingCertDir, Port: env.WebhookInstallOptions.LocalServingPort, CAData: env.WebhookInstallOptions.LocalServingCAData,
		ClientCAFile: clientCA, AuditLog: auditLog, dir: dir}
	fail := func(err error) (*Cluster, error) {
		_ = c.Stop()
		return nil, err
	}
	user, err := env.AddUser(envtest.User{Name: "kpatch-webhook", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fail(err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return fail(err)
	}
	c.Kubeconfig = filepath.Join(c.dir, "kubeconfig")
	if err := os.WriteFile(c.Kubeconfig, kubeconfig, 0o600); err != nil {
		return fail(err)
	}
	if c.Client, err = client.New(cfg, client.Options{Scheme: scheme.Scheme}); err != nil {
		return fail(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: RegistryNamespace}}
	if err := c.Client.Create(ctx, ns); err != nil {
		return fail(err)
	}
	return c, nil
}

// RequireEnv names the environment variable that makes a missing control
// plane a failure instead of a skip; the Makefile sets it, so `make test`
// never passes without the end-to-end suites while a plain `go test ./...`
// on a fresh clone skips them with a message.
const RequireEnv = "KPATCH_REQUIRE_CONTROLPLANE"

// Missing returns why the control plane cannot be started from dir (or
// ControlPlaneDir() when dir is empty), or nil when its binaries are there.
func Missing(dir string) error {
	if dir == "" {
		dir = ControlPlaneDir()
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return fmt.Errorf("no %s in %s: run `make controlplane` first (%w)", bin, dir, err)
		}
	}
	return nil
}

// SkipReason returns a message when the suites that need a control plane
// should be skipped: its binaries are missing and RequireEnv is not set.
// It returns "" when they should run (and fail if the binaries are missing).
func SkipReason() string {
	err := Missing("")
	if err == nil || os.Getenv(RequireEnv) != "" {
		return ""
	}
	return "skipped: " + err.Error() + "; `make e2e` and `make chart` build it and run these tests"
}

// ControlPlaneDir is where kube-apiserver and etcd are: $KUBEBUILDER_ASSETS,
// else $CONTROLPLANE_DIR, else ~/.cache/kpatch/controlplane (where `make
// controlplane` puts them).
func ControlPlaneDir() string {
	for _, dir := range []string{os.Getenv("KUBEBUILDER_ASSETS"), os.Getenv("CONTROLPLANE_DIR")} {
		if dir != "" {
			return dir
		}
	}
	return filepath.Join(os.Getenv("HOME"), ".cache/kpatch/controlplane")
}

func rule(group, resource string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: []string{resource},
		},
	}
}

func webhookConfiguration(o Options) *admissionregistrationv1.MutatingWebhookConfiguration {
	sideEffects := admissionregistrationv1.SideEffectClassNone
	failure := admissionregistrationv1.Ignore
	reinvoke := admissionregistrationv1.IfNeededReinvocationPolicy
	timeout := int32(3)
	path := "/mutate"
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: WebhookConfiguration},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    WebhookName,
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &sideEffects,
			FailurePolicy:           &failure,
			ReinvocationPolicy:      &reinvoke,
			TimeoutSeconds:          &timeout,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{Name: "kpatch", Namespace: RegistryNamespace, Path: &path},
			},
			NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{InjectLabel: "enabled"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{
					Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: o.ExcludeNamespaces,
				}},
			},
			Rules: o.Rules,
		}},
	}
}

// Stop stops the control plane and removes the cluster's files.
func (c *Cluster) Stop() error {
	err := c.Env.Stop()
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
	return err
}

// Webhook is a running webhook process.
type Webhook struct {
	Cmd        *exec.Cmd
	Port       int
	MetricsURL string
	ReadyURL   string
	// ProfilingURL is where /debug/pprof/ is served when the webhook runs
	// with --profiling.
	ProfilingURL string
	// PathToken is the token the webhook answers reviews at
	// (/mutate/<token>), "" when it runs without one.
	PathToken string
	done      chan error
}

// Path is where the API server calls base (/mutate, /validate-registry)
// on the webhook: base, "/" and its path token, or base alone when it runs
// without one.
func (w *Webhook) Path(base string) string {
	if w.PathToken == "" {
		return base
	}
	return base + "/" + w.PathToken
}

// BuildWebhook builds cmd/webhook into the cluster's directory and
// returns the binary's path; when ImageEnv names an image archive, it takes
// the binary out of the image instead.
func (c *Cluster) BuildWebhook() (string, error) {
	if archive := os.Getenv(ImageEnv); archive != "" {
		return WebhookFromImage(archive, c.dir)
	}
	bin := filepath.Join(c.dir, "webhook")
	out, err := exec.Command("go", "build", "-o", bin, "kpatch.dev/kpatch/cmd/webhook").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building the webhook: %v\n%s", err, out)
	}
	return bin, nil
}

// StartWebhook runs the webhook binary against the cluster with the
// serving certificate of the webhook configuration, on port (0: the port
// the configuration calls), keeping its path token in the configuration
// Start installed (--webhook-configuration-name, which extra may
// override), plus extra flags, and waits until /readyz answers OK. It reads
// the path token the webhook serves (Webhook.PathToken) from its Secret.
func (c *Cluster) StartWebhook(ctx context.Context, bin string, port int, log io.Writer, extra ...string) (*Webhook, error) {
	w, err := c.LaunchWebhook(bin, port, log, extra...)
	if err != nil {
		return nil, err
	}
	if err := w.WaitReady(ctx); err != nil {
		return nil, err
	}
	if err := c.ReadPathToken(ctx, w, bin, extra); err != nil {
		return nil, err
	}
	return w, nil
}

// LaunchWebhook starts the webhook as StartWebhook does, and returns as
// soon as its process runs: before it listens, before it is ready.
func (c *Cluster) LaunchWebhook(bin string, port int, log io.Writer, extra ...string) (*Webhook, error) {
	if port == 0 {
		port = c.Port
	}
	metricsPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	probePort, err := FreePort()
	if err != nil {
		return nil, err
	}
	profilingPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--kubeconfig", c.Kubeconfig,
		"--cert-dir", c.CertDir,
		"--port", strconv.Itoa(port),
		"--metrics-bind-address", "127.0.0.1:" + strconv.Itoa(metricsPort),
		"--health-probe-bind-address", "127.0.0.1:" + strconv.Itoa(probePort),
		"--profiling-bind-address", "127.0.0.1:" + strconv.Itoa(profilingPort),
		"--registry-namespace", RegistryNamespace,
		"--webhook-configuration-name", WebhookConfiguration,
	}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := &Webhook{
		Cmd:          cmd,
		Port:         port,
		MetricsURL:   fmt.Sprintf("https://127.0.0.1:%d/metrics", metricsPort),
		ReadyURL:     fmt.Sprintf("http://127.0.0.1:%d/readyz", probePort),
		ProfilingURL: fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/", profilingPort),
		done:         make(chan error, 1),
	}
	go func() { w.done <- cmd.Wait() }()
	return w, nil
}

// ReadPathToken reads the path token the webhook w, run with extra,
// serves (Webhook.PathToken) from its Secret, once the webhook is ready.
func (c *Cluster) ReadPathToken(ctx context.Context, w *Webhook, bin string, extra []string) error {
	if secret := pathTokenSecret(bin, extra); secret != "" {
		var s corev1.Secret
		if err := c.Client.Get(ctx, client.ObjectKey{Namespace: RegistryNamespace, Name: secret}, &s); err != nil {
			w.Stop()
			return fmt.Errorf("the webhook's path token: %w", err)
		}
		w.PathToken = string(s.Data["token"])
	}
	return nil
}

// pathTokenSecret is the Secret of the path token a webhook run with
// extra keeps: --path-token-secret's, PathTokenSecret by default, "" when
// it runs without one (--path-token-secret="", or a build from before the
// flag, which -compare may run).
func pathTokenSecret(bin string, extra []string) string {
	secret := PathTokenSecret
	for i, a := range extra {
		if v, ok := strings.CutPrefix(a, "--path-token-secret="); ok {
			secret = v
		} else if a == "--path-token-secret" && i+1 < len(extra) {
			secret = extra[i+1]
		}
	}
	if secret == "" {
		return ""
	}
	help, _ := exec.Command(bin, "--help").CombinedOutput()
	if !strings.Contains(string(help), "--path-token-secret") {
		return ""
	}
	return secret
}

// WaitReady waits until /readyz answers OK, for a minute at most; it stops
// the webhook if it is not ready by then.
func (w *Webhook) WaitReady(ctx context.Context) error {
	deadline := time.Now().Add(time.Minute)
	for {
		if resp, err := http.Get(w.ReadyURL); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-w.done:
			return fmt.Errorf("the webhook exited before it was ready: %v", err)
		case <-ctx.Done():
			w.Stop()
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			w.Stop()
			return errors.New("the webhook was not ready within a minute")
		}
	}
}

// Stop ends the webhook and waits for it.
func (w *Webhook) Stop() { stopProcess(w.Cmd, w.done) }

// stopProcess interrupts cmd, kills it when it has not ended within ten
// seconds, and waits for its end on done (where its Wait reports).
func stopProcess(cmd *exec.Cmd, done chan error) {
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// MetricsReader is the ServiceAccount of the registry namespace that
// MetricsToken authenticates as; the ClusterRole of the same name grants
// it get on the /metrics URL, as the chart's metrics-reader role does.
const MetricsReader = "kpatch-metrics-reader"

// MetricsToken returns a token of the MetricsReader ServiceAccount, which
// the webhook's metrics endpoint accepts: it authenticates and authorizes
// every scrape with the API server.
func (c *Cluster) MetricsToken(ctx context.Context) (string, error) {
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: MetricsReader, Namespace: RegistryNamespace}},
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: MetricsReader},
			Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
		},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: MetricsReader},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: MetricsReader},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: MetricsReader, Namespace: RegistryNamespace}},
		},
	}
	for _, o := range objs {
		if err := c.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", err
		}
	}
	return c.Token(ctx, RegistryNamespace, MetricsReader)
}

// Token returns a token of a ServiceAccount (a TokenRequest).
func (c *Cluster) Token(ctx context.Context, namespace, serviceAccount string) (string, error) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: serviceAccount, Namespace: namespace}}
	req := &authenticationv1.TokenRequest{}
	if err := c.Client.SubResource("token").Create(ctx, sa, req); err != nil {
		return "", fmt.Errorf("a token of %s/%s: %w", namespace, serviceAccount, err)
	}
	return req.Status.Token, nil
}

// Scrape reads the webhook's metrics with a bearer token over HTTPS; it
// returns the status code and the body.
func (c *Cluster) Scrape(ctx context.Context, w *Webhook, token string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.MetricsURL, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.HTTPClient().Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// Metric returns the value of the series line (name{labels}) of the
// webhook's metrics, scraped as MetricsToken's reader; -1 when absent.
func (c *Cluster) Metric(ctx context.Context, w *Webhook, series string) (float64, error) {
	token, err := c.MetricsToken(ctx)
	if err != nil {
		return 0, err
	}
	code, body, err := c.Scrape(ctx, w, token)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("scraping %s: HTTP %d: %.200s", w.MetricsURL, code, body)
	}
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(body) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), series+" "); ok {
			var n float64
			if _, err := fmt.Sscan(v, &n); err != nil {
				return 0, fmt.Errorf("%s: %w", strings.TrimSpace(line), err)
			}
			return n, nil
		}
	}
	return -1, nil
}

// HTTPClient returns a client that trusts the webhook's serving
// certificate.
func (c *Cluster) HTTPClient() *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.CAData)
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
			MaxIdleConnsPerHost: 16,
			MaxConnsPerHost:     16,
		},
	}
}

// FreePort returns a TCP port free on every interface, below the range
// the kernel gives the local end of outgoing connections
// (ip_local_port_range): a port of that range, free when asked, may be
// taken by a connection of etcd's or the API server's before the webhook
// listens on it. Each port is handed out once per process. Where that
// range starts too low, any free port.
func FreePort() (int, error) {
	if low := ephemeralLow(); low > minPort+1024 {
		portsMu.Lock()
		defer portsMu.Unlock()
		for range 200 {
			p := minPort + rand.IntN(low-minPort)
			if handedOut[p] {
				continue
			}
			l, err := net.Listen("tcp", ":"+strconv.Itoa(p))
			if err != nil {
				continue
			}
			_ = l.Close()
			handedOut[p] = true
			return p, nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// minPort is the lowest port FreePort hands out.
const minPort = 10000

var (
	portsMu   sync.Mutex
	handedOut = map[int]bool{}
)

// ephemeralLow is the first port of the kernel's range for the local end
// of outgoing connections; 0 when it cannot be read.
func ephemeralLow() int {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0
	}
	low, _ := strconv.Atoi(fields[0])
	return low
}
