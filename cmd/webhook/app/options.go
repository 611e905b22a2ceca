package app

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/drift"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// TLS modes of --tls-mode.
const (
	// TLSModeFiles serves tls.crt and tls.key of --cert-dir.
	TLSModeFiles = "files"
	// TLSModeSelfManaged issues a CA and a serving certificate and keeps
	// the webhook configuration's caBundle current.
	TLSModeSelfManaged = "self-managed"
)

// Options are the webhook's command line. NewOptions gives the defaults,
// AddFlags binds them to flags, Validate checks them.
type Options struct {
	Kubeconfig               string
	CertDir                  string
	ClientCAFile             string
	PathTokenSecret          string
	Port                     int
	MetricsBindAddress       string
	HealthProbeBindAddress   string
	RegistryNamespace        string
	RegistrySelector         string
	TenantRegistries         bool
	ManageWebhookRules       bool
	Operations               []string
	Strict                   bool
	AnnotateApplied          bool
	EventsOnPatch            bool
	EventsOnPatchRate        float64
	NamespaceSources         bool
	OnError                  string
	Profiling                bool
	ProfilingBindAddress     string
	EnableHTTP2              bool
	TLSMode                  string
	TLSSecretName            string
	TLSDNSNames              []string
	WebhookConfigurationName string
	LeaderElect              bool
	LeaderElectionID         string
	LastGoodConfigMap        string
	MaxRegistryFiles         int
	MaxFileSize              string
	MaxCompiledSize          string
	MaxApplyItems            int
	ConditionBudget          uint64
	MaxApplyOutput           string
	Serving                  ServingOptions
	Tenancy                  TenancyOptions
	Zap                      zap.Options
	// the source ConfigMaps kept: of the namespaces opted in, bounded
	NamespaceSelector   string
	MaxSourceConfigMaps int
	MaxSourceSize       string
	// the CRD schemas every replica keeps (crdschemas.go)
	CRDSchemas       bool
	MaxCRDSchemaSize string
	// the drift scan and reconcile of the leader (drift.go)
	DriftInterval   time.Duration
	DriftMaxObjects int
	DriftReports    string
	Reconcile       bool
	ReconcileRate   float64
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		CertDir:                "/tmp/k8s-webhook-server/serving-certs",
		Port:                   9443,
		MetricsBindAddress:     ":8080",
		HealthProbeBindAddress: ":8081",
		RegistrySelector:       "kpatch.dev/registry=true",
		Operations:             []string{string(admissionv1.Create), string(admissionv1.Update)},
		OnError:                string(admission.ErrorPolicyAllow),
		NamespaceSources:       true,
		EventsOnPatchRate:      5,
		ProfilingBindAddress:   "127.0.0.1:8082",
		TLSMode:                TLSModeFiles,
		TLSSecretName:          "kpatch-webhook-ca",
		PathTokenSecret:        "kpatch-webhook-path-token",
		LeaderElectionID:       "kpatch-webhook",
		LastGoodConfigMap:      "kpatch-webhook-last-good",
		MaxRegistryFiles:       registry.DefaultLimits.MaxFiles,
		MaxFileSize:            quantity(registry.DefaultLimits.MaxFileSize),
		MaxCompiledSize:        quantity(registry.DefaultLimits.MaxCompiledSize),
		MaxApplyItems:          admission.DefaultBudget.Items,
		MaxApplyOutput:         quantity(int64(admission.DefaultBudget.OutputBytes)),
		Serving:                DefaultServingOptions,
		NamespaceSelector:      "kpatch.dev/inject=enabled",
		MaxSourceConfigMaps:    informed.DefaultSourceLimits.MaxConfigMaps,
		MaxSourceSize:          quantity(informed.DefaultSourceLimits.MaxBytes),
		Tenancy:                DefaultTenancyOptions,
		CRDSchemas:             true,
		MaxCRDSchemaSize:       quantity(defaultMaxCRDSchemaSize),
		DriftInterval:          10 * time.Minute,
		DriftMaxObjects:        drift.DefaultMaxObjects,
		ReconcileRate:          1,
	}
}

// quantity formats a byte count as a Kubernetes quantity (1Mi).
func quantity(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }

// AddFlags binds the options to flags of fs, with the current values as
// defaults.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "kubeconfig file; default $KUBECONFIG, else the in-cluster configuration, else ~/.kube/config")
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "directory holding tls.crt and tls.key, the certificate of the webhook and metrics servers; reloaded when they change")
	fs.IntVar(&o.Port, "port", o.Port, "port of the HTTPS webhook server")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "PEM file of the CA that signs the API server's client certificate: the webhook server then refuses, at the TLS handshake, every client without a certificate it signed; reloaded when it changes; empty: any client")
	fs.StringVar(&o.PathTokenSecret, "path-token-secret", o.PathTokenSecret, "Secret of the registry namespace that holds the path token (created with a random token when missing): "+admission.MutatePath+" and "+admission.ValidatePath+" answer only at <path>/<token>, which --webhook-configuration-name's configurations are made to call; any other review is refused with 403 before it is read; empty: no token, any caller that reaches --port is answered (authenticate the API server otherwise: --client-ca-file)")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, "address of the HTTPS /metrics endpoint, which authenticates and authorizes every scrape with the API server; 0 disables it")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, "address of the /healthz and /readyz endpoints")
	fs.StringVar(&o.RegistryNamespace, "registry-namespace", o.RegistryNamespace, "namespace of the registry ConfigMaps (default: the pod's namespace, else kpatch-system)")
	fs.StringVar(&o.RegistrySelector, "registry-selector", o.RegistrySelector, "label selector of the registry ConfigMaps")
	fs.BoolVar(&o.TenantRegistries, "tenant-registries", o.TenantRegistries, "read the ConfigMaps matching --registry-selector of the namespaces the cluster admin marked "+informed.TenantLabel+"="+informed.TenantEnabled+" (one watch per marked namespace): they patch the objects of their own namespace only, of the kinds of --tenant-kinds, before the registry namespace's files")
	fs.BoolVar(&o.ManageWebhookRules, "manage-webhook-rules", o.ManageWebhookRules, "keep the rules of --webhook-configuration-name equal to the resources the registry's files target, resolved through discovery (the leader writes them)")
	fs.StringSliceVar(&o.Operations, "operations", o.Operations, "comma-separated admission operations to patch: CREATE, UPDATE; a patch file's # kpatch:operations: narrows them for that file")
	fs.BoolVar(&o.Strict, "strict", o.Strict, "deny an object that a patch file fails on, instead of admitting it without that file and a warning")
	fs.BoolVar(&o.AnnotateApplied, "annotate-applied", o.AnnotateApplied, "write the annotation "+admission.AppliedAnnotation+" on every object files change, listing them (configmap/key@version, ...), and keep any other value of it out of the objects the webhook patches")
	fs.BoolVar(&o.EventsOnPatch, "events-on-patch", o.EventsOnPatch, "record an Event on every object files change, naming them (RBAC: events create in every namespace); every replica records its own, within --events-on-patch-rate")
	fs.Float64Var(&o.EventsOnPatchRate, "events-on-patch-rate", o.EventsOnPatchRate, "most Events per second --events-on-patch records per replica, on average (as many at once as one second allows); past it they are dropped and counted in kpatch_patch_events_dropped_total")
	fs.BoolVar(&o.NamespaceSources, "namespace-sources", o.NamespaceSources, "replacements at admission read the ConfigMaps labelled "+informed.SourceLabel+"=true of the object's namespace and of the registry namespace (RBAC: configmaps list and watch in every namespace); false: of the registry namespace only")
	fs.StringVar(&o.OnError, "on-error", o.OnError, "the answer to an internal error (not a patch file's own failure): allow admits the object unpatched with a warning, deny denies it")
	fs.BoolVar(&o.Profiling, "profiling", o.Profiling, "serve Go's /debug/pprof/ profiles on --profiling-bind-address")
	fs.StringVar(&o.ProfilingBindAddress, "profiling-bind-address", o.ProfilingBindAddress, "loopback address of the profiles (kubectl port-forward reaches it)")
	fs.BoolVar(&o.EnableHTTP2, "enable-http2", o.EnableHTTP2, "serve HTTP/2 on the webhook and metrics servers (off: HTTP/1.1 only, against HTTP/2 rapid reset, CVE-2023-44487)")
	fs.StringVar(&o.TLSMode, "tls-mode", o.TLSMode, "files: serve tls.crt and tls.key of --cert-dir; self-managed: issue a CA and serving certificate and keep the webhook configuration's caBundle current")
	fs.StringVar(&o.TLSSecretName, "tls-secret-name", o.TLSSecretName, "self-managed TLS: the Secret of the registry namespace that holds the CA")
	fs.StringSliceVar(&o.TLSDNSNames, "tls-dns-names", o.TLSDNSNames, "self-managed TLS: comma-separated DNS names of the serving certificate (the Service's)")
	fs.StringVar(&o.WebhookConfigurationName, "webhook-configuration-name", o.WebhookConfigurationName, "the webhook's own MutatingWebhookConfiguration: self-managed TLS keeps its caBundle current, --manage-webhook-rules its rules")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "elect a leader among the replicas (a Lease of the registry namespace): only the leader writes the last good store and records Events; every replica serves")
	fs.StringVar(&o.LeaderElectionID, "leader-election-id", o.LeaderElectionID, "name of the leader election's Lease")
	fs.StringVar(&o.LastGoodConfigMap, "last-good-configmap", o.LastGoodConfigMap, "ConfigMap of the registry namespace that keeps the last good version of each registry file, so that every replica applies the same one; it must not carry the registry's label; empty keeps none")
	fs.IntVar(&o.MaxRegistryFiles, "max-registry-files", o.MaxRegistryFiles, "most patch files the registry applies; the files after them in registry order (ConfigMap name, then key) do not apply; 0: no limit")
	fs.StringVar(&o.MaxFileSize, "max-file-size", o.MaxFileSize, "largest registry file; a larger content is refused like one that does not compile; 0: no limit")
	fs.Uint64Var(&o.ConditionBudget, "condition-budget", o.ConditionBudget, "CEL cost units the conditions (# kpatch:when:) of one owner's files may spend together on one object: the registry admin's, and each tenant's, have a budget of their own; past it the owner's files left are not applied, and the object is answered as an internal error (--on-error); 0: the API server's budget of one admission policy (10,000,000)")
	fs.IntVar(&o.MaxApplyItems, "max-apply-items", o.MaxApplyItems, "most map entries and list items one patch file may visit on one object; past it the file is not applied to that object, with a warning")
	fs.StringVar(&o.MaxApplyOutput, "max-apply-output", o.MaxApplyOutput, "most bytes of values one patch file may write on one object; past it the file is not applied to that object, with a warning")
	fs.StringVar(&o.MaxCompiledSize, "max-compiled-size", o.MaxCompiledSize, "most memory the compiled registry may take, estimated as 128 times the source bytes of the versions that apply; a file that does not fit does not apply; 0: no limit")
	o.addSourceFlags(fs)
	o.addCRDFlags(fs)
	o.addDriftFlags(fs)
	o.Serving.addFlags(fs)
	o.Tenancy.addFlags(fs)
	zapFlags := flag.NewFlagSet("zap", flag.ContinueOnError)
	o.Zap.BindFlags(zapFlags)
	fs.AddGoFlagSet(zapFlags)
}

// addSourceFlags binds the options of the source ConfigMaps kept.
func (o *Options) addSourceFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.NamespaceSelector, "namespace-selector", o.NamespaceSelector, "label selector of the namespaces opted in (the webhook configuration's namespaceSelector): with --namespace-sources, the source ConfigMaps of these namespaces (and of the registry namespace) are kept, those of other namespaces dropped as they arrive; empty: every namespace")
	fs.IntVar(&o.MaxSourceConfigMaps, "max-source-configmaps", o.MaxSourceConfigMaps, "most source ConfigMaps kept per namespace: a namespace keeps its first ones by name, the others are refused with an Event on them; 0: no limit")
	fs.StringVar(&o.MaxSourceSize, "max-source-size", o.MaxSourceSize, "most bytes of source ConfigMaps (name, data, binary data, labels, annotations) kept per namespace: a namespace keeps its first ones by name within it, the others are refused with an Event on them; 0: no limit")
}

// addDriftFlags binds the options of the drift scan and reconcile.
func (o *Options) addDriftFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&o.DriftInterval, "drift-interval", o.DriftInterval, "the leader lists the objects of the kinds the registry targets in the namespaces of --namespace-selector, every interval and after each registry change, and admits each as an UPDATE by its ServiceAccount to find those the registry would change now (kpatch_drift_objects; RBAC: list on those kinds, events create); 0 disables the scan")
	fs.IntVar(&o.DriftMaxObjects, "drift-max-objects", o.DriftMaxObjects, "most objects one drift scan admits; a scan that reaches it stops there and says so; 0: the default")
	fs.StringVar(&o.DriftReports, "drift-reports", o.DriftReports, "policyreport: write each scan's stale objects into a PolicyReport (wgpolicyk8s.io/v1alpha2) named "+drift.PolicyReportName+" per namespace, deleted when the namespace has none, when that CRD is installed (RBAC: policyreports get, list, create, update, patch, delete); empty: none")
	fs.BoolVar(&o.Reconcile, "reconcile", o.Reconcile, "for the stale objects of files marked # kpatch:reconcile: true, the leader sends a merge patch of the annotation "+drift.ReconciledAnnotation+" through the API server, so that the UPDATE passes admission and gets the change (RBAC: patch on those kinds); needs the scan and UPDATE in --operations")
	fs.Float64Var(&o.ReconcileRate, "reconcile-rate", o.ReconcileRate, "most objects per second --reconcile patches, on average (as many at once as one second allows), at most one at a time per namespace")
}

// DriftReportsPolicyReport is the value of --drift-reports that writes
// PolicyReports.
const DriftReportsPolicyReport = "policyreport"

// validateDrift checks the options of the drift scan and reconcile.
func (o *Options) validateDrift(operations []admissionv1.Operation) []error {
	var errs []error
	if o.DriftInterval < 0 {
		errs = append(errs, fmt.Errorf("--drift-interval: %v is negative", o.DriftInterval))
	}
	if o.DriftMaxObjects < 0 {
		errs = append(errs, fmt.Errorf("--drift-max-objects: %d is negative", o.DriftMaxObjects))
	}
	switch o.DriftReports {
	case "":
	case DriftReportsPolicyReport:
		if o.DriftInterval == 0 {
			errs = append(errs, errors.New("--drift-reports: the reports are the scan's; --drift-interval=0 disables it"))
		}
	default:
		errs = append(errs, fmt.Errorf("--drift-reports: %q is not %q or empty", o.DriftReports, DriftReportsPolicyReport))
	}
	if !o.Reconcile {
		return errs
	}
	if !(o.ReconcileRate > 0) {
		errs = append(errs, fmt.Errorf("--reconcile-rate: %v is not a positive rate", o.ReconcileRate))
	}
	if o.DriftInterval == 0 {
		errs = append(errs, errors.New("--reconcile: it updates the objects the scan finds; --drift-interval=0 disables it"))
	}
	if len(operations) > 0 && !slices.Contains(operations, admissionv1.Update) {
		errs = append(errs, errors.New("--reconcile: its change comes through an UPDATE, which --operations leaves unpatched"))
	}
	return errs
}

// parseSources parses the options of the source ConfigMaps kept.
func (o *Options) parseSources() (labels.Selector, informed.SourceLimits, []error) {
	var errs []error
	var optIn labels.Selector
	if o.NamespaceSelector != "" {
		var err error
		if optIn, err = labels.Parse(o.NamespaceSelector); err != nil {
			errs = append(errs, fmt.Errorf("--namespace-selector: %w", err))
		}
	}
	l := informed.SourceLimits{MaxConfigMaps: o.MaxSourceConfigMaps}
	if l.MaxConfigMaps < 0 {
		errs = append(errs, fmt.Errorf("--max-source-configmaps: %d is negative", l.MaxConfigMaps))
	}
	v, err := resource.ParseQuantity(o.MaxSourceSize)
	switch {
	case err != nil:
		errs = append(errs, fmt.Errorf("--max-source-size: %q is not a quantity (4Mi, 512Ki): %w", o.MaxSourceSize, err))
	case v.Value() < 0:
		errs = append(errs, fmt.Errorf("--max-source-size: %s is negative", o.MaxSourceSize))
	default:
		l.MaxBytes = v.Value()
	}
	return optIn, l, errs
}

// settings are the options parsed.
type settings struct {
	selector   labels.Selector
	operations []admissionv1.Operation
	onError    admission.ErrorPolicy
	namespace  string
	limits     registry.Limits
	budget     kpatch.Budget
	// the source ConfigMaps kept: of the namespaces optIn selects (nil:
	// every namespace), within sourceLimits
	optIn        labels.Selector
	sourceLimits informed.SourceLimits
	tenancy      registry.Tenancy
	// most bytes of CRD schemas kept
	crdSchemaBytes int64
}

// Validate reports every problem of the options at once.
func (o *Options) Validate() error {
	_, err := o.parse()
	return err
}

func (o *Options) parse() (settings, error) {
	var s settings
	var errs []error
	var err error
	if s.selector, err = labels.Parse(o.RegistrySelector); err != nil {
		errs = append(errs, fmt.Errorf("--registry-selector: %w", err))
	}
	if s.operations, err = parseOperations(o.Operations); err != nil {
		errs = append(errs, err)
	}
	if s.onError, err = admission.ParseErrorPolicy(o.OnError); err != nil {
		errs = append(errs, fmt.Errorf("--on-error: %w", err))
	}
	if s.budget, err = o.parseBudget(); err != nil {
		errs = append(errs, err)
	}
	if o.EventsOnPatch && !(o.EventsOnPatchRate > 0) {
		errs = append(errs, fmt.Errorf("--events-on-patch-rate: %v is not a positive rate", o.EventsOnPatchRate))
	}
	if o.Port < 1 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port: %d is not a port", o.Port))
	}
	if o.Profiling {
		if err := loopback(o.ProfilingBindAddress); err != nil {
			errs = append(errs, fmt.Errorf("--profiling-bind-address: %w", err))
		}
	}
	errs = append(errs, o.validateTLS()...)
	errs = append(errs, o.Serving.validate()...)
	var tenancyErrs []error
	s.tenancy, tenancyErrs = o.Tenancy.parse()
	errs = append(errs, tenancyErrs...)
	if o.ManageWebhookRules && o.WebhookConfigurationName == "" {
		errs = append(errs, errors.New("--webhook-configuration-name: --manage-webhook-rules needs the configuration whose rules it keeps"))
	}
	var limitErrs []error
	s.limits, limitErrs = o.parseLimits()
	errs = append(errs, limitErrs...)
	errs = append(errs, o.validateNames()...)
	var sourceErrs []error
	s.optIn, s.sourceLimits, sourceErrs = o.parseSources()
	errs = append(errs, sourceErrs...)
	if s.crdSchemaBytes, err = o.parseCRDSchemas(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, o.validateDrift(s.operations)...)
	if s.namespace = o.RegistryNamespace; s.namespace == "" {
		s.namespace = defaultNamespace()
	}
	return s, errors.Join(errs...)
}

func (o *Options) validateTLS() []error {
	switch o.TLSMode {
	case TLSModeFiles:
		return nil
	case TLSModeSelfManaged:
		var errs []error
		if o.TLSSecretName == "" {
			errs = append(errs, errors.New("--tls-secret-name: self-managed TLS needs the CA's Secret"))
		}
		if len(o.TLSDNSNames) == 0 {
			errs = append(errs, errors.New("--tls-dns-names: self-managed TLS needs the serving certificate's DNS names"))
		}
		if o.WebhookConfigurationName == "" {
			errs = append(errs, errors.New("--webhook-configuration-name: self-managed TLS needs the configuration whose caBundle it keeps"))
		}
		return errs
	}
	return []error{fmt.Errorf("--tls-mode: %q is not %s or %s", o.TLSMode, TLSModeFiles, TLSModeSelfManaged)}
}

// parseBudget parses the work one file may do on one object.
func (o *Options) parseBudget() (kpatch.Budget, error) {
	if o.MaxApplyItems < 1 {
		return kpatch.Budget{}, fmt.Errorf("--max-apply-items: %d is not a positive number", o.MaxApplyItems)
	}
	v, err := resource.ParseQuantity(o.MaxApplyOutput)
	if err != nil {
		return kpatch.Budget{}, fmt.Errorf("--max-apply-output: %q is not a quantity (8Mi, 512Ki): %w", o.MaxApplyOutput, err)
	}
	if v.Value() < 1 {
		return kpatch.Budget{}, fmt.Errorf("--max-apply-output: %s is not a positive size", o.MaxApplyOutput)
	}
	return kpatch.Budget{Items: o.MaxApplyItems, OutputBytes: int(v.Value())}, nil
}

// parseLimits parses the registry's limits.
func (o *Options) parseLimits() (registry.Limits, []error) {
	var errs []error
	l := registry.Limits{MaxFiles: o.MaxRegistryFiles}
	if l.MaxFiles < 0 {
		errs = append(errs, fmt.Errorf("--max-registry-files: %d is negative", l.MaxFiles))
	}
	for _, q := range []struct {
		flag, value string
		into        *int64
	}{{"--max-file-size", o.MaxFileSize, &l.MaxFileSize}, {"--max-compiled-size", o.MaxCompiledSize, &l.MaxCompiledSize}} {
		v, err := resource.ParseQuantity(q.value)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not a quantity (1Mi, 512Ki): %w", q.flag, q.value, err))
			continue
		}
		if *q.into = v.Value(); *q.into < 0 {
			errs = append(errs, fmt.Errorf("%s: %s is negative", q.flag, q.value))
		}
	}
	return l, errs
}

// validateNames checks the names of the Lease, the last good store and
// the path token's Secret.
func (o *Options) validateNames() []error {
	var errs []error
	if msgs := validation.IsDNS1123Subdomain(o.LeaderElectionID); o.LeaderElect && len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("--leader-election-id: %q: %s", o.LeaderElectionID, strings.Join(msgs, "; ")))
	}
	if msgs := validation.IsDNS1123Subdomain(o.LastGoodConfigMap); o.LastGoodConfigMap != "" && len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("--last-good-configmap: %q: %s", o.LastGoodConfigMap, strings.Join(msgs, "; ")))
	}
	if msgs := validation.IsDNS1123Subdomain(o.PathTokenSecret); o.PathTokenSecret != "" && len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("--path-token-secret: %q: %s", o.PathTokenSecret, strings.Join(msgs, "; ")))
	}
	return errs
}

func parseOperations(list []string) ([]admissionv1.Operation, error) {
	var ops []admissionv1.Operation
	for _, part := range list {
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

// loopback checks that a bind address is on a loopback interface.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q is not a loopback address (127.0.0.1, [::1] or localhost): profiles must not leave the pod", addr)
	}
	return nil
}

const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

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
