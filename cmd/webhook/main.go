// Command webhook is the kpatch mutating admission webhook. It keeps the
// registry (the patch files in the ConfigMaps of one namespace that match a
// selector) compiled in memory and patches every object the API server
// sends it, answering with an RFC 6902 JSONPatch.
package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/pprof"
	"os"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/servingcert"
)

// options are the command line.
type options struct {
	certDir           string
	port              int
	metricsAddr       string
	probeAddr         string
	registryNamespace string
	registrySelector  string
	operations        string
	strict            bool
	profiling         bool
	tlsMode           string
	tlsSecret         string
	tlsDNSNames       string
	webhookConfig     string
}

const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

func main() {
	var o options
	flag.StringVar(&o.certDir, "cert-dir", "/tmp/k8s-webhook-server/serving-certs", "directory holding tls.crt and tls.key; reloaded when they change")
	flag.IntVar(&o.port, "port", 9443, "port of the HTTPS webhook server")
	flag.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "address of the /metrics endpoint; 0 disables it")
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints")
	flag.StringVar(&o.registryNamespace, "registry-namespace", "", "namespace of the registry ConfigMaps (default: the pod's namespace, else kpatch-system)")
	flag.StringVar(&o.registrySelector, "registry-selector", "kpatch.dev/registry=true", "label selector of the registry ConfigMaps")
	flag.StringVar(&o.operations, "operations", "CREATE", "comma-separated admission operations to patch: CREATE, UPDATE")
	flag.BoolVar(&o.strict, "strict", false, "deny an object that a patch file fails on, instead of admitting it without that file and a warning")
	flag.BoolVar(&o.profiling, "profiling", false, "serve Go's /debug/pprof/ profiles on the metrics address")
	flag.StringVar(&o.tlsMode, "tls-mode", "files", "files: serve tls.crt and tls.key of --cert-dir; self-managed: issue a CA and serving certificate and keep the webhook configuration's caBundle current")
	flag.StringVar(&o.tlsSecret, "tls-secret-name", "kpatch-webhook-ca", "self-managed TLS: the Secret of the registry namespace that holds the CA")
	flag.StringVar(&o.tlsDNSNames, "tls-dns-names", "", "self-managed TLS: comma-separated DNS names of the serving certificate (the Service's)")
	flag.StringVar(&o.webhookConfig, "webhook-configuration-name", "", "self-managed TLS: the MutatingWebhookConfiguration whose caBundle is kept current")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	if err := run(o); err != nil {
		ctrl.Log.Error(err, "webhook failed")
		os.Exit(1)
	}
}

func run(o options) error {
	selector, err := labels.Parse(o.registrySelector)
	if err != nil {
		return fmt.Errorf("--registry-selector: %w", err)
	}
	ops, err := parseOperations(o.operations)
	if err != nil {
		return err
	}
	ns := o.registryNamespace
	if ns == "" {
		ns = defaultNamespace()
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	metricsOpts := metricsserver.Options{BindAddress: o.metricsAddr}
	if o.profiling {
		metricsOpts.ExtraHandlers = map[string]http.Handler{"/debug/pprof/": http.HandlerFunc(pprof.Index),
			"/debug/pprof/profile": http.HandlerFunc(pprof.Profile), "/debug/pprof/symbol": http.HandlerFunc(pprof.Symbol)}
	}
	serverOpts := webhook.Options{Port: o.port, CertDir: o.certDir}
	var keeper *servingcert.Keeper
	switch o.tlsMode {
	case "files":
	case "self-managed":
		if keeper, err = servingcert.New(servingcert.Options{
			Namespace:            ns,
			SecretName:           o.tlsSecret,
			DNSNames:             splitList(o.tlsDNSNames),
			WebhookConfiguration: o.webhookConfig,
			RESTConfig:           cfg,
			Log:                  ctrl.Log.WithName("tls"),
		}); err != nil {
			return err
		}
		serverOpts.TLSOpts = []func(*tls.Config){keeper.TLSOption}
	default:
		return fmt.Errorf("--tls-mode: %q is not files or self-managed", o.tlsMode)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 clientgoscheme.Scheme,
		Metrics:                metricsOpts,
		HealthProbeBindAddress: o.probeAddr,
		WebhookServer:          webhook.NewServer(serverOpts),
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.ConfigMap{}: {Namespaces: map[string]cache.Config{ns: {}}, Label: selector},
		}},
	})
	if err != nil {
		return err
	}
	if keeper != nil {
		keeper.SetClients(mgr.GetAPIReader(), mgr.GetClient())
		if err := mgr.Add(keeper); err != nil {
			return err
		}
	}
	metrics := admission.NewMetrics(crmetrics.Registry)
	watcher := &admission.Watcher{
		Client:    mgr.GetClient(),
		Namespace: ns,
		Selector:  selector,
		Recorder:  mgr.GetEventRecorder("kpatch-webhook"),
		Metrics:   metrics,
		Log:       ctrl.Log.WithName("registry"),
	}
	if err := watcher.SetupWithManager(mgr); err != nil {
		return err
	}
	mgr.GetWebhookServer().Register("/mutate", &webhook.Admission{Handler: &admission.Handler{
		Registry:          watcher.Current,
		RegistryNamespace: ns,
		Operations:        ops,
		Strict:            o.strict,
		Metrics:           metrics,
	}})
	// Readiness on the TLS listener itself, for a probe that proves the
	// certificate is served: ready once the registry has synced.
	mgr.GetWebhookServer().Register("/readyz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := watcher.Ready(r); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return err
	}
	ctrl.Log.Info("starting", "registryNamespace", ns, "registrySelector", selector.String(), "operations", ops, "strict", o.strict)
	return mgr.Start(ctrl.SetupSignalHandler())
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func parseOperations(s string) ([]admissionv1.Operation, error) {
	var ops []admissionv1.Operation
	for _, part := range strings.Split(s, ",") {
		switch op := admissionv1.Operation(strings.ToUpper(strings.TrimSpace(part))); op {
		case admissionv1.Create, admissionv1.Update:
			ops = append(ops, op)
		default:
			return nil, fmt.Errorf("--operations: %q is not CREATE or UPDATE", part)
		}
	}
	if len(ops) == 0 {
		return nil, errors.New("--operations: at least one operation is needed")
	}
	return ops, nil
}

// defaultNamespace is the pod's namespace when running in a cluster, else
// kpatch-system.
func defaultNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if b, err := os.ReadFile(serviceAccountNamespace); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b))
	}
	return "kpatch-system"
}
