package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/pathtoken"
	"kpatch.dev/kpatch/pkg/rules"
	"kpatch.dev/kpatch/pkg/servingcert"
)

// Run runs the webhook until ctx ends.
func Run(ctx context.Context, o *Options) error {
	s, err := o.parse()
	if err != nil {
		return err
	}
	cfg, err := o.restConfig()
	if err != nil {
		return err
	}
	keeper, err := o.servingCertKeeper(s.namespace, cfg)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, o.managerOptions(s, o.tlsOptions(keeper)))
	if err != nil {
		return err
	}
	if keeper != nil {
		keeper.SetClients(mgr.GetAPIReader(), mgr.GetClient())
		if err := mgr.Add(keeper); err != nil {
			return err
		}
	}
	if err := o.setupWebhook(mgr, s); err != nil {
		return err
	}
	if o.Profiling {
		pprof, err := newProfilingServer(o.ProfilingBindAddress)
		if err != nil {
			return err
		}
		if err := mgr.Add(pprof); err != nil {
			return err
		}
	}
	ctrl.Log.Info("starting", "registryNamespace", s.namespace, "registrySelector", s.selector.String(),
		"operations", s.operations, "strict", o.Strict, "onError", s.onError, "http2", o.EnableHTTP2,
		"leaderElect", o.LeaderElect, "tenantRegistries", o.TenantRegistries, "tenantKinds", s.tenancy.Kinds.String(), "tenantLimits", s.tenancy.Limits, "manageWebhookRules", o.ManageWebhookRules, "pathTokenSecret", o.PathTokenSecret, "lastGoodConfigMap", o.LastGoodConfigMap, "limits", s.limits)
	return mgr.Start(ctx)
}

// restConfig is --kubeconfig's configuration, else controller-runtime's
// default ($KUBECONFIG, in-cluster, ~/.kube/config).
func (o *Options) restConfig() (*rest.Config, error) {
	if o.Kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
	}
	return ctrl.GetConfig()
}

// servingCertKeeper is the self-managed TLS's certificate keeper, nil in
// files mode.
func (o *Options) servingCertKeeper(namespace string, cfg *rest.Config) (*servingcert.Keeper, error) {
	if o.TLSMode != TLSModeSelfManaged {
		return nil, nil
	}
	return servingcert.New(servingcert.Options{
		Namespace:            namespace,
		SecretName:           o.TLSSecretName,
		DNSNames:             o.TLSDNSNames,
		WebhookConfiguration: o.WebhookConfigurationName,
		RESTConfig:           cfg,
		Log:                  ctrl.Log.WithName("tls"),
	})
}

// tlsOptions are the TLS settings of the webhook and metrics servers: the
// self-managed certificate if any, and HTTP/1.1 only unless --enable-http2.
func (o *Options) tlsOptions(keeper *servingcert.Keeper) []func(*tls.Config) {
	var opts []func(*tls.Config)
	if keeper != nil {
		opts = append(opts, keeper.TLSOption)
	}
	if !o.EnableHTTP2 {
		opts = append(opts, disableHTTP2)
	}
	return opts
}

// disableHTTP2 offers HTTP/1.1 only, as kubebuilder's scaffold does by
// default: HTTP/2's stream resets allow a cheap denial of service
// (CVE-2023-44487, CVE-2023-39325).
func disableHTTP2(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }

// managerOptions are the manager's: the webhook and metrics servers over
// TLS, the probes, and a cache of the registry ConfigMaps only.
func (o *Options) managerOptions(s settings, tlsOpts []func(*tls.Config)) ctrl.Options {
	return ctrl.Options{
		Scheme: clientgoscheme.Scheme,
		// Metrics over HTTPS with the webhook's certificate; every scrape
		// is authenticated (TokenReview) and authorized (a
		// SubjectAccessReview of get on the /metrics URL) by the API server.
		Metrics: metricsserver.Options{
			BindAddress:    o.MetricsBindAddress,
			SecureServing:  true,
			FilterProvider: filters.WithAuthenticationAndAuthorization,
			CertDir:        o.CertDir,
			TLSOpts:        tlsOpts,
		},
		HealthProbeBindAddress: o.HealthProbeBindAddress,
		// No manager-level election: it ends the process when the lease
		// is lost. With --leader-elect, the elector (leader.go) campaigns
		// for the leader's own work only; every replica serves.
		WebhookServer: o.newWebhookServer(tlsOpts),
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.ConfigMap{}: o.registryCache(s),
			// every Namespace, never copied: informed.InformedNamespaces
			// keeps each version from the informer's events, and the
			// handler only reads them
			&corev1.Namespace{}: {Transform: informed.StripManagedFields, UnsafeDisableDeepCopy: ptr.To(true)},
		}},
	}
}

// registryCache selects the registry ConfigMaps of the registry
// namespace: those with the registry label. The tenants' are read by
// informed.TenantRegistries, of the marked namespaces only.
func (o *Options) registryCache(s settings) cache.ByObject {
	return cache.ByObject{Namespaces: map[string]cache.Config{s.namespace: {}}, Label: s.selector}
}

// setupWebhook adds the registry watcher, the admission handler at
// /mutate, the registry's validation at /validate-registry (both behind
// the path token), readiness on the TLS listener and the health checks.
func (o *Options) setupWebhook(mgr manager.Manager, s settings) error {
	metrics := metrics.NewMetrics(crmetrics.Registry)
	watcher := &admission.Watcher{
		Client:    mgr.GetClient(),
		Namespace: s.namespace,
		Selector:  s.selector,
		Limits:    s.limits,
		// tenants' ConfigMaps: informed.TenantRegistries, set below
		TenantRegistries: o.TenantRegistries,
		Tenancy:          s.tenancy,
		Recorder:         mgr.GetEventRecorder("kpatch-webhook"),
		Metrics:          metrics,
		Log:              ctrl.Log.WithName("registry"),
	}
	var lead *leaderWork
	if o.LeaderElect {
		lead = &leaderWork{o: o, main: mgr, s: s, watcher: watcher}
		el, err := newElector(mgr.GetConfig(), s.namespace, o.LeaderElectionID, lead.term, ctrl.Log.WithName("leader-election"))
		if err != nil {
			return err
		}
		watcher.Leading = el.Leads
		if err := mgr.Add(el); err != nil {
			return err
		}
	}
	if o.LastGoodConfigMap != "" {
		store, err := admission.NewLastGoodStoreFor(mgr, s.namespace, o.LastGoodConfigMap)
		if err != nil {
			return err
		}
		watcher.Store = store
	}
	if err := watcher.SetupWithManager(mgr); err != nil {
		return err
	}
	if o.TenantRegistries {
		// the registry ConfigMaps of the namespaces the cluster admin
		// marked, one watch each; a change asks for a sync
		tenants, err := informed.NewTenantRegistriesFor(mgr, s.namespace, s.selector, watcher.RequestSync)
		if err != nil {
			return err
		}
		watcher.Tenants = tenants
	}
	// the Namespace informer starts with the manager's caches, which sync
	// before the registry's first sync, which readiness waits for
	namespaces, err := informed.NewNamespacesFor(mgr)
	if err != nil {
		return err
	}
	if lead != nil && o.ManageWebhookRules {
		lead.hookAfterSync()
	} else if o.ManageWebhookRules {
		if err := o.setupRulesKeeper(mgr, s, watcher); err != nil {
			return err
		}
	}
	sources, err := o.sourceConfigMaps(mgr, s, metrics, watcher.Leading)
	if err != nil {
		return err
	}
	schemas, err := o.crdSchemas(mgr, s.crdSchemaBytes, ctrl.Log.WithName("crd-schemas"))
	if err != nil {
		return err
	}
	handler := &admission.Handler{
		Registry:          watcher.Current,
		Schemas:           schemas,
		Namespaces:        namespaces,
		Sources:           sources,
		RegistryNamespace: s.namespace,
		Operations:        s.operations,
		Strict:            o.Strict,
		OnError:           s.onError,
		Metrics:           metrics,
		Budget:            s.budget,
		ConditionBudget:   o.ConditionBudget,
		AnnotateApplied:   o.AnnotateApplied,
	}
	if o.EventsOnPatch {
		handler.Events = admission.NewPatchEvents(mgr.GetEventRecorder("kpatch-webhook"), o.EventsOnPatchRate, metrics)
	}
	if err := o.setupDrift(mgr, s, lead, watcher, handler, namespaces, metrics); err != nil {
		return err
	}
	server, ok := mgr.GetWebhookServer().(*webhookServer)
	if !ok {
		return fmt.Errorf("the manager's webhook server is a %T, not the webhook's own", mgr.GetWebhookServer())
	}
	paths, err := o.pathTokenKeeper(mgr, s, metrics)
	if err != nil {
		return err
	}
	// /validate-registry is called only when a ValidatingWebhookConfiguration
	// sends it the registry ConfigMaps' edits (the chart's
	// registry.validate.enabled)
	server.serveReviews(paths, o.mutateHandler(handler), o.validateHandler(admission.NewRegistryValidator(watcher), metrics))
	ready := []healthz.Checker{watcher.Ready}
	if paths != nil {
		ready = append(ready, paths.Ready)
		if err := mgr.AddReadyzCheck("path-token", paths.Ready); err != nil {
			return err
		}
	}
	// Readiness on the TLS listener itself, for a probe that proves the
	// certificate is served: ready once the registry has synced and the
	// path token is read.
	server.Register("/readyz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, check := range ready {
			if err := check(r); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = w.Write([]byte("ok"))
	}))
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if o.ClientCAFile != "" {
		// a probe has no client certificate: readiness moves to the
		// probes' port
		if err := mgr.AddReadyzCheck("registry", watcher.Ready); err != nil {
			return err
		}
	}
	return mgr.AddReadyzCheck("webhook", server.StartedChecker())
}

// setupDrift runs the drift scan (--drift-interval) on the leader: in
// each term with --leader-elect, else in every replica.
func (o *Options) setupDrift(mgr manager.Manager, s settings, lead *leaderWork, w *admission.Watcher, h *admission.Handler,
	namespaces *informed.InformedNamespaces, m *metrics.Metrics) error {
	loop, err := o.newDriftLoop(mgr, s, w, h, namespaces, m, crmetrics.Registry)
	if err != nil || loop == nil {
		return err
	}
	if lead != nil {
		lead.drift = loop
		return nil
	}
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		loop.run(ctx)
		return nil
	}))
}

// pathTokenKeeper is the keeper of the path token, which every replica
// runs, nil without --path-token-secret. It writes the paths into the
// configurations of --webhook-configuration-name, when set.
func (o *Options) pathTokenKeeper(mgr manager.Manager, s settings, m *metrics.Metrics) (*pathtoken.Keeper, error) {
	if o.PathTokenSecret == "" {
		return nil, nil
	}
	k, err := pathtoken.New(pathtoken.Options{
		Namespace: s.namespace, SecretName: o.PathTokenSecret,
		WebhookConfiguration: o.WebhookConfigurationName, MutatePath: admission.MutatePath, ValidatePath: admission.ValidatePath,
		// uncached: RBAC grants get on these names only
		Reader: mgr.GetAPIReader(), Writer: mgr.GetClient(), FieldManager: admission.FieldManager,
		Metrics: m, Log: ctrl.Log.WithName("path-token"),
	})
	if err != nil {
		return nil, err
	}
	return k, mgr.Add(k)
}

// sourceConfigMaps are the ConfigMaps labelled kpatch.dev/source=true
// that replacements read: of the namespaces opted in (--namespace-selector)
// and the registry namespace, or with --namespace-sources=false of the
// registry namespace only; each namespace within --max-source-configmaps
// and --max-source-size. A ConfigMap refused is counted, and the leader
// (every replica without --leader-elect) records an Event on it.
func (o *Options) sourceConfigMaps(mgr manager.Manager, s settings, m *metrics.Metrics, leads func() bool) (*informed.SourceConfigMaps, error) {
	recorder := mgr.GetEventRecorder("kpatch-webhook")
	opts := informed.SourceOptions{
		Namespace: s.namespace,
		Limits:    s.sourceLimits,
		Refused: func(r informed.SourceRefusal) {
			m.SourceRefused(r.Reason)
			if leads == nil || leads() {
				recorder.Eventf(r.ConfigMap, nil, corev1.EventTypeWarning, ReasonSourceConfigMapRefused, "Keep", "%s", r.Message)
			}
		},
	}
	if o.NamespaceSources {
		opts.Namespace, opts.OptIn, opts.Always = "", s.optIn, []string{s.namespace}
	}
	return informed.NewSourceConfigMapsFor(mgr, opts)
}

// ReasonSourceConfigMapRefused is the reason of the Event on a source
// ConfigMap that the limits of its namespace refuse.
const ReasonSourceConfigMapRefused = "SourceConfigMapRefused"

// setupRulesKeeper has the leader keep the webhook configuration's rules
// equal to the resources the registry targets (--manage-webhook-rules).
func (o *Options) setupRulesKeeper(mgr manager.Manager, s settings, watcher *admission.Watcher) error {
	ops := make([]admissionregistrationv1.OperationType, 0, len(s.operations))
	for _, op := range s.operations {
		ops = append(ops, admissionregistrationv1.OperationType(op))
	}
	keeper, err := rules.NewRulesKeeperFor(mgr, o.WebhookConfigurationName, watcher, ops)
	if err != nil {
		return err
	}
	return keeper.SetupWithManager(mgr, watcher)
}
