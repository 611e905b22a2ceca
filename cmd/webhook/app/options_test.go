package app

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	admissionv1 "k8s.io/api/admission/v1"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/registry"
)

// parse parses args into fresh options.
func parse(t *testing.T, args ...string) *Options {
	t.Helper()
	o := NewOptions()
	fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return o
}

func TestDefaults(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "from-pod")
	o := parse(t)
	s, err := o.parse()
	if err != nil {
		t.Fatal(err)
	}
	if o.Port != 9443 || o.MetricsBindAddress != ":8080" || o.HealthProbeBindAddress != ":8081" || o.TLSMode != TLSModeFiles ||
		o.Strict || o.Profiling || o.EnableHTTP2 || o.ProfilingBindAddress != "127.0.0.1:8082" {
		t.Errorf("defaults %+v", o)
	}
	if s.onError != admission.ErrorPolicyAllow || !slices.Equal(s.operations, []admissionv1.Operation{admissionv1.Create, admissionv1.Update}) ||
		s.selector.String() != "kpatch.dev/registry=true" || s.namespace != "from-pod" {
		t.Errorf("parsed defaults %+v", s)
	}
	if o.LeaderElect || o.LeaderElectionID != "kpatch-webhook" || o.LastGoodConfigMap != "kpatch-webhook-last-good" ||
		o.MaxRegistryFiles != 10000 || o.MaxFileSize != "1Mi" || o.MaxCompiledSize != "128Mi" {
		t.Errorf("defaults %+v", o)
	}
	if s.limits != registry.DefaultLimits {
		t.Errorf("limits %+v", s.limits)
	}
}

// TestSourceFlags: the namespaces whose source ConfigMaps are kept, and
// the limits of each.
func TestSourceFlags(t *testing.T) {
	s, err := parse(t).parse()
	if err != nil {
		t.Fatal(err)
	}
	if s.optIn.String() != "kpatch.dev/inject=enabled" || s.sourceLimits != informed.DefaultSourceLimits {
		t.Errorf("defaults: %v %+v", s.optIn, s.sourceLimits)
	}
	s, err = parse(t, "--namespace-selector=team in (a,b)", "--max-source-configmaps=7", "--max-source-size=64Ki").parse()
	if err != nil {
		t.Fatal(err)
	}
	if s.optIn.String() != "team in (a,b)" || s.sourceLimits != (informed.SourceLimits{MaxConfigMaps: 7, MaxBytes: 64 << 10}) {
		t.Errorf("parsed: %v %+v", s.optIn, s.sourceLimits)
	}
	if s, err := parse(t, "--namespace-selector=", "--max-source-configmaps=0", "--max-source-size=0").parse(); err != nil || s.optIn != nil || s.sourceLimits != (informed.SourceLimits{}) {
		t.Errorf("every namespace, no limits: %v %+v %v", s.optIn, s.sourceLimits, err)
	}
	for args, want := range map[string]string{
		"--namespace-selector=a=b=c": "--namespace-selector:",
		"--max-source-configmaps=-1": "--max-source-configmaps: -1 is negative",
		"--max-source-size=big":      `--max-source-size: "big" is not a quantity`,
		"--max-source-size=-1Ki":     "--max-source-size: -1Ki is negative",
	} {
		if err := parse(t, args).Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

func TestRegistryFlags(t *testing.T) {
	o := parse(t, "--leader-elect", "--leader-election-id=kpatch-lease", "--last-good-configmap=kept", "--max-registry-files=50",
		"--max-file-size=256Ki", "--max-compiled-size=1Gi")
	s, err := o.parse()
	if err != nil {
		t.Fatal(err)
	}
	if !o.LeaderElect || o.LeaderElectionID != "kpatch-lease" || o.LastGoodConfigMap != "kept" {
		t.Errorf("options %+v", o)
	}
	if s.limits != (registry.Limits{MaxFiles: 50, MaxFileSize: 256 << 10, MaxCompiledSize: 1 << 30}) {
		t.Errorf("limits %+v", s.limits)
	}
	if s.budget != admission.DefaultBudget {
		t.Errorf("default budget %+v", s.budget)
	}
	if s, err = parse(t, "--max-apply-items=5000", "--max-apply-output=64Ki").parse(); err != nil || s.budget.Items != 5000 || s.budget.OutputBytes != 64<<10 {
		t.Errorf("budget %+v, %v", s.budget, err)
	}
	// no store, no limits
	if err := parse(t, "--last-good-configmap=", "--max-registry-files=0", "--max-file-size=0", "--max-compiled-size=0").Validate(); err != nil {
		t.Error(err)
	}
}

func TestFlags(t *testing.T) {
	o := parse(t, "--kubeconfig=/k", "--cert-dir=/tls", "--port=10443", "--metrics-bind-address=:9090",
		"--health-probe-bind-address=:9091", "--registry-namespace=reg", "--registry-selector=team in (a,b)",
		"--operations=update", "--strict", "--on-error=deny", "--profiling", "--profiling-bind-address=[::1]:6060",
		"--enable-http2", "--tls-mode=self-managed", "--tls-secret-name=ca", "--tls-dns-names=a.svc,b.svc",
		"--webhook-configuration-name=mwc", "--zap-log-level=debug")
	s, err := o.parse()
	if err != nil {
		t.Fatal(err)
	}
	if o.Kubeconfig != "/k" || o.CertDir != "/tls" || o.Port != 10443 || o.MetricsBindAddress != ":9090" || o.HealthProbeBindAddress != ":9091" ||
		!o.Strict || !o.Profiling || o.ProfilingBindAddress != "[::1]:6060" || !o.EnableHTTP2 || o.TLSMode != TLSModeSelfManaged ||
		o.TLSSecretName != "ca" || !slices.Equal(o.TLSDNSNames, []string{"a.svc", "b.svc"}) || o.WebhookConfigurationName != "mwc" {
		t.Errorf("options %+v", o)
	}
	if s.namespace != "reg" || s.onError != admission.ErrorPolicyDeny || s.selector.String() != "team in (a,b)" ||
		!slices.Equal(s.operations, []admissionv1.Operation{admissionv1.Update}) {
		t.Errorf("parsed %+v", s)
	}
	if o.Zap.Level == nil {
		t.Error("--zap-log-level was not bound")
	}
}

func TestValidateRejects(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"selector":                 {[]string{"--registry-selector=a in ("}, "--registry-selector:"},
		"operation":                {[]string{"--operations=DELETE"}, `--operations: "DELETE" is not CREATE or UPDATE`},
		"no operation":             {[]string{"--operations="}, "--operations: at least one"},
		"on-error":                 {[]string{"--on-error=sometimes"}, `--on-error: "sometimes": not allow or deny`},
		"port":                     {[]string{"--port=70000"}, "--port: 70000 is not a port"},
		"tls mode":                 {[]string{"--tls-mode=none"}, `--tls-mode: "none" is not files or self-managed`},
		"self-managed, no names":   {[]string{"--tls-mode=self-managed", "--webhook-configuration-name=x"}, "--tls-dns-names: self-managed TLS needs"},
		"self-managed, no config":  {[]string{"--tls-mode=self-managed", "--tls-dns-names=a"}, "--webhook-configuration-name: self-managed TLS needs"},
		"profiling on every host":  {[]string{"--profiling", "--profiling-bind-address=:6060"}, "--profiling-bind-address: \":6060\" is not a loopback address"},
		"profiling on the pod IP":  {[]string{"--profiling", "--profiling-bind-address=10.0.0.1:6060"}, "is not a loopback address"},
		"profiling on all of IPv4": {[]string{"--profiling", "--profiling-bind-address=0.0.0.0:6060"}, "is not a loopback address"},
		"profiling without a port": {[]string{"--profiling", "--profiling-bind-address=127.0.0.1"}, "--profiling-bind-address: address 127.0.0.1: missing port"},
		"negative file count":      {[]string{"--max-registry-files=-1"}, "--max-registry-files: -1 is negative"},
		"file size":                {[]string{"--max-file-size=1MB!"}, `--max-file-size: "1MB!" is not a quantity`},
		"negative compiled size":   {[]string{"--max-compiled-size=-1Mi"}, "--max-compiled-size: -1Mi is negative"},
		"no apply items":           {[]string{"--max-apply-items=0"}, "--max-apply-items: 0 is not a positive number"},
		"apply output":             {[]string{"--max-apply-output=lots"}, `--max-apply-output: "lots" is not a quantity`},
		"store name":               {[]string{"--last-good-configmap=Last_Good"}, `--last-good-configmap: "Last_Good":`},
		"lease name":               {[]string{"--leader-elect", "--leader-election-id=a b"}, `--leader-election-id: "a b":`},
	} {
		err := parse(t, c.args...).Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if err := parse(t, "--on-error=maybe").Validate(); !errors.Is(err, admission.ErrBadErrorPolicy) {
		t.Errorf("--on-error's error is not ErrBadErrorPolicy: %v", err)
	}
	// every problem at once
	err := parse(t, "--on-error=x", "--port=0", "--tls-mode=y").Validate()
	if err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("want three problems: %v", err)
	}
	// a loopback address that is not used is not checked
	if err := parse(t, "--profiling-bind-address=:6060").Validate(); err != nil {
		t.Errorf("profiling off: %v", err)
	}
}

func TestCommandRefusesBadFlags(t *testing.T) {
	cmd := NewCommand()
	cmd.SetArgs([]string{"--on-error=sometimes"})
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--on-error") {
		t.Errorf("execute: %v", err)
	}
	cmd = NewCommand()
	cmd.SetArgs([]string{"extra"})
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	if err := cmd.Execute(); err == nil {
		t.Error("an argument was accepted")
	}
}

func TestClusterScaleFlags(t *testing.T) {
	o := parse(t)
	if o.TenantRegistries || o.ManageWebhookRules {
		t.Errorf("tenant registries and managed rules are off by default: %+v", o)
	}
	o = parse(t, "--tenant-registries", "--manage-webhook-rules", "--webhook-configuration-name=mwc")
	if err := o.Validate(); err != nil || !o.TenantRegistries || !o.ManageWebhookRules {
		t.Errorf("%+v: %v", o, err)
	}
	if err := parse(t, "--manage-webhook-rules").Validate(); err == nil || !strings.Contains(err.Error(), "--webhook-configuration-name: --manage-webhook-rules needs") {
		t.Errorf("managed rules without a configuration: %v", err)
	}
}

// TestTenancyFlags: --tenant-kinds is the allowlist of the tenants'
// kinds, the defaults the workloads and what comes with them, never a
// guardrail kind; --max-tenant-files and --max-tenant-compiled-size bound
// each tenant.
func TestTenancyFlags(t *testing.T) {
	s, err := parse(t).parse()
	if err != nil {
		t.Fatal(err)
	}
	if !s.tenancy.Kinds.Allows("Deployment", "apps") || !s.tenancy.Kinds.Allows("PodDisruptionBudget", "policy") || s.tenancy.Kinds.Allows("Secret", "") {
		t.Errorf("default --tenant-kinds %s", s.tenancy.Kinds)
	}
	if s.tenancy.Limits != registry.DefaultTenantLimits {
		t.Errorf("default tenant limits %+v", s.tenancy.Limits)
	}
	s, err = parse(t, "--tenant-kinds=Secret,Widget.example.com", "--max-tenant-files=3", "--max-tenant-compiled-size=1Mi").parse()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.tenancy.Kinds.String(); got != "Secret.core,Widget.example.com" || s.tenancy.Limits.MaxFiles != 3 || s.tenancy.Limits.MaxCompiledSize != 1<<20 {
		t.Errorf("kinds %s, limits %+v", got, s.tenancy.Limits)
	}
	err = parse(t, "--tenant-kinds=Deployment,ResourceQuota,RoleBinding.rbac.authorization.k8s.io", "--max-tenant-files=-1", "--max-tenant-compiled-size=lots").Validate()
	for _, want := range []string{`--tenant-kinds: the tenants' kinds: "ResourceQuota"`, `"RoleBinding.rbac.authorization.k8s.io"`, "--max-tenant-files: -1 is negative", "--max-tenant-compiled-size"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v: want %s", err, want)
		}
	}
}

// TestNamespaceSources: replacements read the source ConfigMaps of every
// namespace unless --namespace-sources=false.
func TestNamespaceSources(t *testing.T) {
	if o := parse(t); !o.NamespaceSources {
		t.Error("--namespace-sources is on by default")
	}
	if o := parse(t, "--namespace-sources=false"); o.NamespaceSources {
		t.Error("--namespace-sources=false is off")
	}
}

func TestAuditTrailFlags(t *testing.T) {
	if o := parse(t); o.AnnotateApplied || o.EventsOnPatch || o.EventsOnPatchRate != 5 {
		t.Errorf("defaults %v %v %v", o.AnnotateApplied, o.EventsOnPatch, o.EventsOnPatchRate)
	}
	o := parse(t, "--annotate-applied", "--events-on-patch", "--events-on-patch-rate=0.5")
	if err := o.Validate(); err != nil || !o.AnnotateApplied || !o.EventsOnPatch || o.EventsOnPatchRate != 0.5 {
		t.Errorf("options %v %v %v: %v", o.AnnotateApplied, o.EventsOnPatch, o.EventsOnPatchRate, err)
	}
	for _, rate := range []string{"0", "-1", "NaN"} {
		err := parse(t, "--events-on-patch", "--events-on-patch-rate="+rate).Validate()
		if err == nil || !strings.Contains(err.Error(), "--events-on-patch-rate: ") {
			t.Errorf("rate %s: %v", rate, err)
		}
	}
}

// TestDriftFlags: the scan every 10 minutes, reporting only, by default;
// each drift flag refused where it cannot work.
func TestDriftFlags(t *testing.T) {
	o := parse(t)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if o.DriftInterval != 10*time.Minute || o.DriftMaxObjects != 50000 || o.DriftReports != "" || o.Reconcile || o.ReconcileRate != 1 {
		t.Errorf("defaults %v %d %q %v %v", o.DriftInterval, o.DriftMaxObjects, o.DriftReports, o.Reconcile, o.ReconcileRate)
	}
	for _, args := range [][]string{
		{"--drift-interval=0"},
		{"--drift-interval=30s", "--drift-max-objects=10", "--drift-reports=policyreport", "--reconcile", "--reconcile-rate=0.5"},
	} {
		if err := parse(t, args...).Validate(); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	for want, args := range map[string][]string{
		"--drift-interval: -1s is negative":               {"--drift-interval=-1s"},
		"--drift-max-objects: -1 is negative":             {"--drift-max-objects=-1"},
		`--drift-reports: "kyverno" is not`:               {"--drift-reports=kyverno"},
		"--drift-reports: the reports are the scan's":     {"--drift-interval=0", "--drift-reports=policyreport"},
		"--reconcile-rate: 0 is not a positive rate":      {"--reconcile", "--reconcile-rate=0"},
		"--reconcile: it updates the objects the scan":    {"--reconcile", "--drift-interval=0"},
		"--reconcile: its change comes through an UPDATE": {"--reconcile", "--operations=CREATE"},
	} {
		if err := parse(t, args...).Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", args, err, want)
		}
	}
}
