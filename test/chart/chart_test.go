// Package chart tests the Helm chart charts/kpatch-webhook with Helm's own
// packages: lint, schema, rendering of every mode, assertions on what
// keeps a cluster safe, a server-side dry run of every rendered object on
// the real kube-apiserver, with the cert-manager and Prometheus operator
// CRDs installed, and of the defaults on a bare one; config/default and the
// RBAC table of docs/security.md are kept equal to the chart. It is a
// module of its own, so that Helm stays out of the product's go.mod.
package chart

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/releaseutil"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/test/cluster"
)

const (
	chartDir  = "../../charts/kpatch-webhook"
	namespace = "kpatch-system"
	release   = "kpatch"
)

var kubeVersion = chartutil.KubeVersion{Version: "v1.37.0", Major: "1", Minor: "37"}

// modes are the documented ways to install the chart.
var modes = []struct {
	name   string
	values map[string]any
}{
	{"default", nil},
	{"fail-closed", map[string]any{"webhook": map[string]any{"failurePolicy": "Fail"}}},
	{"cert-manager", map[string]any{"tls": map[string]any{"certManager": map[string]any{"enabled": true}}, "metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}}},
	{"monitoring-and-example", map[string]any{
		"metrics":  map[string]any{"serviceMonitor": map[string]any{"enabled": true}, "prometheusRule": map[string]any{"enabled": true}},
		"registry": map[string]any{"example": true},
	}},
	{"create-only-strict", map[string]any{"webhook": map[string]any{"operations": []any{"CREATE"}, "strict": true, "excludeNamespaces": []any{"legacy"}}}},
	{"single-replica", map[string]any{"replicaCount": 1, "leaderElection": map[string]any{"enabled": false},
		"registry": map[string]any{"maxFiles": 500, "maxFileSize": "256Ki", "maxCompiledSize": "64Mi"},
		"webhook":  map[string]any{"maxApplyItems": 50000, "maxApplyOutput": "1Mi"}}},
	{"namespace-sources", map[string]any{"webhook": map[string]any{"namespaceSources": true, "maxSourceConfigMaps": 20, "maxSourceSize": "1Mi"}}},
	{"audit-trail", map[string]any{"webhook": map[string]any{"annotateApplied": true, "eventsOnPatch": true, "eventsOnPatchRate": 2.5}}},
	{"filtered", map[string]any{"webhook": map[string]any{
		"objectSelector": map[string]any{"matchExpressions": []any{map[string]any{"key": "kpatch.dev/skip", "operator": "DoesNotExist"}}},
		"exclude": map[string]any{
			"users":           []any{"system:kube-controller-manager"},
			"groups":          []any{"system:nodes"},
			"serviceAccounts": []any{"kube-system/generic-garbage-collector", "argocd/argocd-application-controller"},
		},
		"matchConditions": []any{map[string]any{"name": "not-dry-run", "expression": "!request.dryRun"}},
	}}},
	{"own-security-context", map[string]any{
		"priorityClassName":  "",
		"podSecurityContext": map[string]any{"runAsNonRoot": true, "runAsUser": 1000, "fsGroup": 1000, "seccompProfile": map[string]any{"type": "RuntimeDefault"}},
		"securityContext":    map[string]any{"runAsUser": 1000, "readOnlyRootFilesystem": true},
	}},
	{"scaled-with-dashboard", map[string]any{
		"autoscaling": map[string]any{"enabled": true, "minReplicas": 2, "maxReplicas": 6, "targetCPUUtilizationPercentage": 60},
		"resources":   map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "64Mi"}, "limits": map[string]any{"cpu": "1500m", "memory": "256Mi"}},
		"grafana":     map[string]any{"dashboard": map[string]any{"enabled": true}},
	}},
	{"tenants", map[string]any{"registry": map[string]any{"tenants": map[string]any{"enabled": true, "kinds": []any{"@workload", "Service"}, "maxFiles": 5}}}},
	{"static-rules", map[string]any{"webhook": map[string]any{"manageRules": false}}},
	// the API server authenticated by its client certificate: no path token
	{"client-ca", map[string]any{"tls": map[string]any{"clientCA": map[string]any{"secretName": "apiserver-client-ca"}}, "webhook": map[string]any{"pathToken": map[string]any{"enabled": false}}}},
	{"closed-doors", map[string]any{
		"networkPolicy": map[string]any{"enabled": true, "webhookFrom": []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.0.0.0/8"}}}},
		"metrics":       map[string]any{"reader": map[string]any{"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "prometheus", "namespace": "monitoring"}}}},
	}},
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func capabilities() *chartutil.Capabilities {
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = kubeVersion
	return caps
}

// render renders the chart with values and decodes every object.
func render(t *testing.T, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	ch := loadChart(t)
	caps := capabilities()
	rv, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true}, caps)
	if err != nil {
		t.Fatalf("values: %v", err)
	}
	files, err := engine.Render(ch, rv)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name) // shown to the user, not installed
		}
	}
	_, manifests, err := releaseutil.SortManifests(files, caps.APIVersions, releaseutil.InstallOrder)
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, m := range manifests {
		dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(m.Content), 4096)
		for {
			var u unstructured.Unstructured
			if err := dec.Decode(&u.Object); err != nil {
				break
			}
			if len(u.Object) > 0 {
				objs = append(objs, &u)
			}
		}
	}
	if len(objs) == 0 {
		t.Fatal("nothing rendered")
	}
	return objs
}

// typed finds the one rendered object of kind and converts it.
func typed[T any](t *testing.T, objs []*unstructured.Unstructured, kind string) *T {
	t.Helper()
	var out *T
	for _, u := range objs {
		if u.GetKind() != kind {
			continue
		}
		if out != nil {
			t.Fatalf("two %s objects", kind)
		}
		out = new(T)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func kinds(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, u := range objs {
		out = append(out, u.GetKind())
	}
	slices.Sort(out)
	return out
}

func TestLint(t *testing.T) {
	for _, m := range modes {
		result := lint.AllWithKubeVersion(chartDir, m.values, namespace, &kubeVersion)
		for _, msg := range result.Messages {
			if msg.Severity >= support.WarningSev {
				t.Errorf("%s: %v", m.name, msg)
			}
		}
	}
}

func TestSchemaRejectsUnknownAndMistypedValues(t *testing.T) {
	ch := loadChart(t)
	for name, values := range map[string]map[string]any{
		"unknown top-level key":     {"replicas": 2},
		"unknown nested key":        {"webhook": map[string]any{"failurePolcy": "Fail"}},
		"mistyped replicaCount":     {"replicaCount": "two"},
		"bad failure policy":        {"webhook": map[string]any{"failurePolicy": "Sometimes"}},
		"bad operation":             {"webhook": map[string]any{"operations": []any{"DELETE"}}},
		"the former TLS mode":       {"tls": map[string]any{"mode": "cert-manager"}},
		"mistyped cert-manager":     {"tls": map[string]any{"certManager": map[string]any{"enabled": "yes"}}},
		"the former token file":     {"metrics": map[string]any{"serviceMonitor": map[string]any{"bearerTokenFile": "/token"}}},
		"bad service account":       {"webhook": map[string]any{"exclude": map[string]any{"serviceAccounts": []any{"no-namespace"}}}},
		"unknown exclusion":         {"webhook": map[string]any{"exclude": map[string]any{"roles": []any{"admin"}}}},
		"condition without CEL":     {"webhook": map[string]any{"matchConditions": []any{map[string]any{"name": "a"}}}},
		"condition named as ours":   {"webhook": map[string]any{"matchConditions": []any{map[string]any{"name": "kpatch-exclude-users", "expression": "true"}}}},
		"bad selector operator":     {"webhook": map[string]any{"objectSelector": map[string]any{"matchExpressions": []any{map[string]any{"key": "a", "operator": "Has"}}}}},
		"mistyped security context": {"podSecurityContext": "restricted"},
		"mistyped monitor":          {"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": "yes"}}},
		"bad duration":              {"tls": map[string]any{"certManager": map[string]any{"certDuration": "a month"}}},
		"timeout above 30s":         {"webhook": map[string]any{"timeoutSeconds": 31}},
		"mistyped namespace label":  {"networkPolicy": map[string]any{"metricsNamespaceLabels": map[string]any{"a": 1}}},
		"mistyped policy":           {"networkPolicy": map[string]any{"enabled": "true"}},
		"bad webhook peer":          {"networkPolicy": map[string]any{"webhookFrom": []any{map[string]any{"everyone": true}}}},
		"bad reader subject":        {"metrics": map[string]any{"reader": map[string]any{"subjects": []any{map[string]any{"kind": "Robot", "name": "r"}}}}},
		"bad file size":             {"registry": map[string]any{"maxFileSize": "1 MB"}},
		"negative file count":       {"registry": map[string]any{"maxFiles": -1}},
		"mistyped election":         {"leaderElection": map[string]any{"enabled": "yes"}},
		"empty client CA key":       {"tls": map[string]any{"clientCA": map[string]any{"secretName": "ca", "key": ""}}},
	} {
		_, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true}, capabilities())
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestWebhookConfiguration(t *testing.T) {
	for _, m := range modes {
		objs := render(t, m.values)
		mwc := typed[admissionregistrationv1.MutatingWebhookConfiguration](t, objs, "MutatingWebhookConfiguration")
		if mwc == nil || len(mwc.Webhooks) != 1 {
			t.Fatalf("%s: no webhook configuration", m.name)
		}
		w := mwc.Webhooks[0]
		wantPolicy := admissionregistrationv1.Ignore
		if m.name == "fail-closed" {
			wantPolicy = admissionregistrationv1.Fail
		}
		if *w.FailurePolicy != wantPolicy {
			t.Errorf("%s: failurePolicy %s, want %s", m.name, *w.FailurePolicy, wantPolicy)
		}
		wantSideEffects := admissionregistrationv1.SideEffectClassNone
		if m.name == "audit-trail" { // no Event on a dry run
			wantSideEffects = admissionregistrationv1.SideEffectClassNoneOnDryRun
		}
		if *w.SideEffects != wantSideEffects || *w.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy || *w.TimeoutSeconds != 3 {
			t.Errorf("%s: sideEffects %s, reinvocation %s, timeout %d", m.name, *w.SideEffects, *w.ReinvocationPolicy, *w.TimeoutSeconds)
		}
		if w.NamespaceSelector.MatchLabels["kpatch.dev/inject"] != "enabled" {
			t.Errorf("%s: opt-in label %v", m.name, w.NamespaceSelector.MatchLabels)
		}
		var excluded []string
		for _, e := range w.NamespaceSelector.MatchExpressions {
			if e.Key == "kubernetes.io/metadata.name" && e.Operator == metav1.LabelSelectorOpNotIn {
				excluded = e.Values
			}
		}
		if !slices.Contains(excluded, namespace) || !slices.Contains(excluded, "kube-system") {
			t.Errorf("%s: excluded namespaces %v lack the release namespace or kube-system", m.name, excluded)
		}
		if m.name == "create-only-strict" && !slices.Contains(excluded, "legacy") {
			t.Errorf("%s: extra exclusion missing: %v", m.name, excluded)
		}
		wantOps := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
		if m.name == "create-only-strict" {
			wantOps = wantOps[:1]
		}
		for _, r := range w.Rules {
			if !slices.Equal(r.Operations, wantOps) {
				t.Errorf("%s: rule %v has operations %v, want %v", m.name, r.Resources, r.Operations, wantOps)
			}
		}
		inject := mwc.Annotations["cert-manager.io/inject-ca-from"]
		if m.name == "cert-manager" {
			if inject != namespace+"/kpatch-webhook-serving" {
				t.Errorf("%s: inject-ca-from %q", m.name, inject)
			}
		} else if inject != "" {
			t.Errorf("%s: cert-manager CA injection in self-managed mode", m.name)
		}
		if m.name != "filtered" && (w.ObjectSelector != nil || len(w.MatchConditions) != 0) {
			t.Errorf("%s: objectSelector %v, matchConditions %v by default", m.name, w.ObjectSelector, w.MatchConditions)
		}
		// with the path token, no path: the webhook writes its own
		pathToken := m.name != "client-ca"
		if w.ClientConfig.Service == nil || pathToken != (w.ClientConfig.Service.Path == nil) || !pathToken && *w.ClientConfig.Service.Path != "/mutate" {
			t.Errorf("%s: client config %+v", m.name, w.ClientConfig)
		}
		// internal errors are answered as the failure policy answers a failed call
		wantOnError := "--on-error=allow"
		if wantPolicy == admissionregistrationv1.Fail {
			wantOnError = "--on-error=deny"
		}
		args := containerArgs(t, objs)
		if !slices.Contains(args, wantOnError) {
			t.Errorf("%s: no %s in %v", m.name, wantOnError, args)
		}
		wantPathToken := "--path-token-secret="
		if pathToken {
			wantPathToken += "kpatch-webhook-path-token"
		}
		if !slices.Contains(args, wantPathToken) {
			t.Errorf("%s: no %s in %v", m.name, wantPathToken, args)
		}
		// rules managed by default, for the chart's own configuration;
		// tenant registries off by default
		managed := m.name != "static-rules"
		if slices.Contains(args, "--manage-webhook-rules=true") != managed ||
			!slices.Contains(args, "--webhook-configuration-name="+mwc.Name) {
			t.Errorf("%s: managed rules %v: args %v", m.name, managed, args)
		}
		// self-managed TLS unless cert-manager is asked for
		selfManaged := []string{"--tls-mode=self-managed", "--tls-secret-name=kpatch-webhook-ca",
			"--tls-dns-names=kpatch-webhook.kpatch-system.svc,kpatch-webhook.kpatch-system.svc.cluster.local"}
		for _, a := range selfManaged {
			if slices.Contains(args, a) == (m.name == "cert-manager") {
				t.Errorf("%s: %s in %v", m.name, a, args)
			}
		}
		if slices.Contains(args, "--cert-dir=/tls") != (m.name == "cert-manager") {
			t.Errorf("%s: --cert-dir: args %v", m.name, args)
		}
		if slices.Contains(args, "--namespace-sources=true") != (m.name == "namespace-sources") {
			t.Errorf("%s: namespace sources: args %v", m.name, args)
		}
		if slices.Contains(args, "--tenant-registries=true") != (m.name == "tenants") {
			t.Errorf("%s: tenant registries: args %v", m.name, args)
		}
		tenancy := []string{"--tenant-kinds=@workload,Service", "--max-tenant-files=5", "--max-tenant-compiled-size=8Mi"}
		if m.name == "tenants" && slices.ContainsFunc(tenancy, func(a string) bool { return !slices.Contains(args, a) }) {
			t.Errorf("%s: tenancy: args %v, want %v", m.name, args, tenancy)
		}
	}
}

// containerArgs returns the webhook container's arguments.
func containerArgs(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	return typed[appsv1.Deployment](t, objs, "Deployment").Spec.Template.Spec.Containers[0].Args
}

// alerts returns the rendered PrometheusRule's alerts: name to expression.
func alerts(t *testing.T, objs []*unstructured.Unstructured) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, u := range objs {
		if u.GetKind() != "PrometheusRule" {
			continue
		}
		groups, _, _ := unstructured.NestedSlice(u.Object, "spec", "groups")
		for _, g := range groups {
			rules, _, _ := unstructured.NestedSlice(g.(map[string]any), "rules")
			for _, r := range rules {
				rule := r.(map[string]any)
				name, _ := rule["alert"].(string)
				expr, _ := rule["expr"].(string)
				out[name] = expr
			}
		}
	}
	return out
}

func TestPrometheusRuleAlerts(t *testing.T) {
	got := alerts(t, render(t, map[string]any{"metrics": map[string]any{"prometheusRule": map[string]any{"enabled": true}}}))
	for name, want := range map[string]string{
		"KpatchApplyLatencyHigh":      "kpatch_apply_duration_seconds_bucket",
		"KpatchRegistryCompileErrors": "kpatch_registry_failing_files",
		"KpatchFileFailing":           `sum by (file) (increase(kpatch_file_applications_total{namespace="kpatch-system",result="failed"}[15m])) > 0`,
		"KpatchInternalErrors":        "kpatch_internal_errors_total",
		"KpatchRegistryOverLimit":     `max by (limit) (kpatch_registry_over_limit_files{namespace="kpatch-system"}) > 0`,
		"KpatchLastGoodNotStored":     `max(kpatch_last_good_not_stored_files{namespace="kpatch-system"}) > 0`,
		"KpatchForgedReviews":         `kpatch_admission_requests_rejected_total{namespace="kpatch-system",reason=~"path-token-missing|path-token-wrong"}`,
		// the API server's own count of calls it gave up on and admitted
		"KpatchWebhookFailingOpen": `sum(increase(apiserver_admission_webhook_fail_open_count{name="mutate.kpatch.dev"}[10m])) > 0`,
		// and of the registry's validation (type validating: the API
		// server's name for a validating webhook's step)
		"KpatchRegistryValidationFailingOpen": `sum(increase(apiserver_admission_webhook_fail_open_count{name="validate-registry.kpatch.dev",type="validating"}[10m])) > 0`,
	} {
		if !strings.Contains(got[name], want) {
			t.Errorf("alert %s: %q, want %q", name, got[name], want)
		}
	}
	// each alert names the webhook its configuration renders
	objs := render(t, nil)
	for alert, name := range map[string]string{
		"KpatchWebhookFailingOpen":            typed[admissionregistrationv1.MutatingWebhookConfiguration](t, objs, "MutatingWebhookConfiguration").Webhooks[0].Name,
		"KpatchRegistryValidationFailingOpen": typed[admissionregistrationv1.ValidatingWebhookConfiguration](t, objs, "ValidatingWebhookConfiguration").Webhooks[0].Name,
	} {
		if !strings.Contains(got[alert], `{name="`+name+`"`) {
			t.Errorf("alert %s: %q does not name the webhook %s", alert, got[alert], name)
		}
	}
	// without the registry's validation, nothing to alert on
	got = alerts(t, render(t, map[string]any{"metrics": map[string]any{"prometheusRule": map[string]any{"enabled": true}}, "registry": map[string]any{"validate": map[string]any{"enabled": false}}}))
	if _, ok := got["KpatchRegistryValidationFailingOpen"]; ok || got["KpatchWebhookFailingOpen"] == "" {
		t.Errorf("registry.validate.enabled false: alerts %v", slices.Sorted(maps.Keys(got)))
	}
}

// TestReplicasAgree: the replicas elect a leader with a Lease of their
// own, which writes the last good ConfigMap the chart installs, empty,
// without the registry's label and kept by Helm when a release no longer
// renders it; the registry's limits reach the flags.
func TestReplicasAgree(t *testing.T) {
	for _, m := range modes {
		objs := render(t, m.values)
		args := containerArgs(t, objs)
		want := []string{"--leader-elect=true", "--leader-election-id=kpatch-webhook", "--last-good-configmap=kpatch-webhook-last-good",
			"--max-registry-files=10000", "--max-file-size=1Mi", "--max-compiled-size=128Mi", "--max-apply-items=1000000", "--max-apply-output=8Mi"}
		if m.name == "single-replica" {
			want = []string{"--leader-elect=false", "--max-registry-files=500", "--max-file-size=256Ki", "--max-compiled-size=64Mi",
				"--max-apply-items=50000", "--max-apply-output=1Mi"}
		}
		// the source ConfigMaps kept (and the namespaces drift scans):
		// of the namespaces the webhook configuration selects, without
		// those it excludes, within the limits
		selector := "--namespace-selector=kpatch.dev/inject=enabled"
		if m.name == "create-only-strict" {
			selector += ",kubernetes.io/metadata.name notin (legacy)"
		}
		want = append(want, selector)
		if m.name == "namespace-sources" {
			want = append(want, "--max-source-configmaps=20", "--max-source-size=1Mi")
		} else {
			want = append(want, "--max-source-configmaps=100", "--max-source-size=4Mi")
		}
		want = append(want, "--crd-schemas=true", "--max-crd-schema-size=64Mi")
		for _, a := range want {
			if !slices.Contains(args, a) {
				t.Errorf("%s: no %s in %v", m.name, a, args)
			}
		}
		var store *corev1.ConfigMap
		for name, cm := range all[corev1.ConfigMap](t, objs, "ConfigMap") {
			if name == "kpatch-webhook-last-good" {
				store = cm
			}
		}
		if store == nil || store.Namespace != namespace || len(store.Data) != 0 || store.Labels["kpatch.dev/registry"] != "" || store.Annotations["helm.sh/resource-policy"] != "keep" {
			t.Errorf("%s: the last good ConfigMap %+v", m.name, store)
		}
		leases := false
		for _, r := range typed[rbacv1.Role](t, objs, "Role").Rules {
			leases = leases || slices.Contains(r.Resources, "leases") && slices.Equal(r.ResourceNames, []string{"kpatch-webhook"})
		}
		if leases != (m.name != "single-replica") {
			t.Errorf("%s: the Role grants the Lease: %v", m.name, leases)
		}
	}
}

func TestPodIsRestrictedAndHighlyAvailable(t *testing.T) {
	objs := render(t, nil)
	d := typed[appsv1.Deployment](t, objs, "Deployment")
	if *d.Spec.Replicas != 2 {
		t.Errorf("replicas %d", *d.Spec.Replicas)
	}
	pod := d.Spec.Template.Spec
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot ||
		pod.SecurityContext.SeccompProfile == nil || pod.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security context %+v", pod.SecurityContext)
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if sc == nil || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container security context %+v", sc)
	}
	// no fixed user: OpenShift's restricted SCC assigns one per namespace
	// and refuses any other
	if pod.SecurityContext.RunAsUser != nil || pod.SecurityContext.RunAsGroup != nil || sc.RunAsUser != nil || sc.RunAsGroup != nil {
		t.Errorf("a fixed user: pod %+v, container %+v", pod.SecurityContext, sc)
	}
	if pod.PriorityClassName != "system-cluster-critical" {
		t.Errorf("priorityClassName %q", pod.PriorityClassName)
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Scheme != corev1.URISchemeHTTPS || c.ReadinessProbe.HTTPGet.Port.String() != "webhook" {
		t.Errorf("readiness probe is not on the TLS listener: %+v", c.ReadinessProbe)
	}
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil || c.Lifecycle.PreStop.Sleep.Seconds < 1 {
		t.Errorf("no preStop delay: %+v", c.Lifecycle)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("no resource requests: %+v", c.Resources)
	}
	memLimit := false
	for _, e := range c.Env {
		memLimit = memLimit || e.Name == "GOMEMLIMIT" && e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory"
	}
	if !memLimit {
		t.Error("GOMEMLIMIT does not follow the memory limit")
	}
	if len(pod.TopologySpreadConstraints) == 0 {
		t.Error("no topology spread")
	}
	if !slices.Contains(kinds(objs), "PodDisruptionBudget") {
		t.Error("no PodDisruptionBudget")
	}
}

// TestSecurityContextsAndPriorityAreValues: the pod's and the container's
// security contexts and the priority class are the user's to set.
func TestSecurityContextsAndPriorityAreValues(t *testing.T) {
	pod := typed[appsv1.Deployment](t, render(t, modeValues(t, "own-security-context")), "Deployment").Spec.Template.Spec
	if pod.PriorityClassName != "" {
		t.Errorf("priorityClassName %q", pod.PriorityClassName)
	}
	psc, sc := pod.SecurityContext, pod.Containers[0].SecurityContext
	if psc == nil || psc.RunAsUser == nil || *psc.RunAsUser != 1000 || psc.FSGroup == nil || *psc.FSGroup != 1000 {
		t.Errorf("pod security context %+v", psc)
	}
	// values merge with the defaults: what is not overridden stays
	if sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 1000 || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container security context %+v", sc)
	}
}

// TestDefaultsInstallOnABareCluster: with no values, the chart renders
// only objects of the API groups every cluster serves (no cert-manager, no
// Prometheus operator) and grants nothing on ConfigMaps outside the release
// namespace.
func TestDefaultsInstallOnABareCluster(t *testing.T) {
	builtin := []string{"", "apps", "policy", "rbac.authorization.k8s.io", "admissionregistration.k8s.io"}
	for _, u := range render(t, nil) {
		if g := u.GroupVersionKind().Group; !slices.Contains(builtin, g) {
			t.Errorf("%s %s of API group %s", u.GetKind(), u.GetName(), g)
		}
	}
	for name, cr := range all[rbacv1.ClusterRole](t, render(t, nil), "ClusterRole") {
		for _, r := range cr.Rules {
			if slices.Contains(r.Resources, "configmaps") || slices.Contains(r.Resources, "*") || slices.Contains(r.Verbs, "*") {
				t.Errorf("ClusterRole %s grants %v on %v", name, r.Verbs, r.Resources)
			}
		}
	}
}

func TestRBACIsLeastPrivilege(t *testing.T) {
	for _, m := range modes {
		objs := render(t, m.values)
		role := typed[rbacv1.Role](t, objs, "Role")
		if role == nil || role.Namespace != namespace {
			t.Fatalf("%s: no Role in the release namespace", m.name)
		}
		for _, r := range role.Rules {
			for _, res := range r.Resources {
				switch {
				case res == "configmaps" && slices.Equal(r.Verbs, []string{"get", "list", "watch"}):
				case res == "configmaps" && slices.Equal(r.Verbs, []string{"create", "update", "patch"}) && slices.Equal(r.ResourceNames, []string{"kpatch-webhook-last-good"}):
				case res == "leases" && m.name != "single-replica" && r.APIGroups[0] == "coordination.k8s.io" &&
					(slices.Equal(r.Verbs, []string{"get", "update", "patch"}) && slices.Equal(r.ResourceNames, []string{"kpatch-webhook"}) || slices.Equal(r.Verbs, []string{"create"})):
				case res == "events" && !slices.Contains(r.Verbs, "delete") && !slices.Contains(r.Verbs, "*"):
				case res == "secrets" && m.name != "cert-manager" && (slices.Equal(r.ResourceNames, []string{"kpatch-webhook-ca"}) || slices.Equal(r.Verbs, []string{"create"})):
				case res == "secrets" && m.name != "client-ca" && slices.Equal(r.ResourceNames, []string{"kpatch-webhook-path-token"}) && slices.Equal(r.Verbs, []string{"get", "create", "patch"}):
				default:
					t.Errorf("%s: Role grants %v on %s (names %v)", m.name, r.Verbs, res, r.ResourceNames)
				}
			}
		}
		roles := all[rbacv1.ClusterRole](t, objs, "ClusterRole")
		want := []string{"kpatch-system-kpatch-webhook-metrics-auth", "kpatch-system-kpatch-webhook-metrics-reader", "kpatch-system-kpatch-webhook-namespaces",
			"kpatch-system-kpatch-webhook-crd-schemas"}
		if m.name != "static-rules" {
			want = append(want, "kpatch-system-kpatch-webhook-rules")
		}
		if m.name != "cert-manager" {
			want = append(want, "kpatch-system-kpatch-webhook-cabundle")
		}
		if m.name != "client-ca" {
			want = append(want, "kpatch-system-kpatch-webhook-path-token")
		}
		if m.name == "tenants" {
			want = append(want, "kpatch-system-kpatch-webhook-tenants")
		}
		if m.name == "namespace-sources" {
			want = append(want, "kpatch-system-kpatch-webhook-sources")
		}
		if m.name == "audit-trail" {
			want = append(want, "kpatch-system-kpatch-webhook-patch-events")
		}
		if got := slices.Sorted(maps.Keys(roles)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("%s: ClusterRoles %v, want %v", m.name, got, want)
		}
		for name, cr := range roles {
			if problem := clusterRoleProblem(name, cr.Rules); problem != "" {
				t.Errorf("%s: ClusterRole %s: %s: %+v", m.name, name, problem, cr.Rules)
			}
		}
		bindings := all[rbacv1.ClusterRoleBinding](t, objs, "ClusterRoleBinding")
		auth := bindings["kpatch-system-kpatch-webhook-metrics-auth"]
		if auth == nil || len(auth.Subjects) != 1 || auth.Subjects[0].Name != "kpatch-webhook" || auth.RoleRef.Name != "kpatch-system-kpatch-webhook-metrics-auth" {
			t.Errorf("%s: the webhook's metrics-auth binding %+v", m.name, auth)
		}
		reader := bindings["kpatch-system-kpatch-webhook-metrics-reader"]
		if (reader != nil) != (m.name == "closed-doors") || reader != nil && (len(reader.Subjects) != 1 || reader.Subjects[0].Name != "prometheus") {
			t.Errorf("%s: the metrics-reader binding %+v", m.name, reader)
		}
		// the ServiceMonitor's own identity may read /metrics, nothing else
		scraper := bindings["kpatch-system-kpatch-webhook-metrics-scraper"]
		monitored := m.name == "cert-manager" || m.name == "monitoring-and-example"
		if (scraper != nil) != monitored || scraper != nil && (scraper.RoleRef.Name != "kpatch-system-kpatch-webhook-metrics-reader" ||
			len(scraper.Subjects) != 1 || scraper.Subjects[0].Name != "kpatch-webhook-metrics-scraper" || scraper.Subjects[0].Namespace != namespace) {
			t.Errorf("%s: the metrics-scraper binding %+v", m.name, scraper)
		}
	}
}

// clusterRoleProblem says what a cluster role grants beyond its purpose.
func clusterRoleProblem(name string, rules []rbacv1.PolicyRule) string {
	type grant struct{ group, resource, verbs, url string }
	var got []grant
	for _, r := range rules {
		for _, res := range r.Resources {
			if len(r.APIGroups) != 1 {
				return "a rule over several API groups"
			}
			got = append(got, grant{r.APIGroups[0], res, strings.Join(r.Verbs, ","), ""})
		}
		for _, u := range r.NonResourceURLs {
			got = append(got, grant{"", "", strings.Join(r.Verbs, ","), u})
		}
	}
	want := map[string][]grant{
		"kpatch-system-kpatch-webhook-metrics-auth": {
			{"authentication.k8s.io", "tokenreviews", "create", ""},
			{"authorization.k8s.io", "subjectaccessreviews", "create", ""},
		},
		"kpatch-system-kpatch-webhook-metrics-reader": {{"", "", "get", "/metrics"}},
		// read only, from an informer
		"kpatch-system-kpatch-webhook-namespaces": {{"", "namespaces", "get,list,watch", ""}},
		// self-managed TLS: the caBundles of the mutating and the
		// validating configuration, read uncached
		"kpatch-system-kpatch-webhook-cabundle": {
			{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "get,patch", ""},
			{"admissionregistration.k8s.io", "validatingwebhookconfigurations", "get,patch", ""},
		},
		// the path token: the paths of the mutating and the validating
		// configuration, read uncached
		"kpatch-system-kpatch-webhook-path-token": {
			{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "get,patch", ""},
			{"admissionregistration.k8s.io", "validatingwebhookconfigurations", "get,patch", ""},
		},
		// the CRDs' schemas, from an informer on every replica
		"kpatch-system-kpatch-webhook-crd-schemas": {{"apiextensions.k8s.io", "customresourcedefinitions", "get,list,watch", ""}},
		// managed rules: the configuration from an informer, and the CRDs
		"kpatch-system-kpatch-webhook-rules": {
			{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "get,list,watch,patch", ""},
			{"apiextensions.k8s.io", "customresourcedefinitions", "get,list,watch", ""},
		},
		"kpatch-system-kpatch-webhook-tenants": {
			{"", "configmaps", "get,list,watch", ""},
			{"events.k8s.io", "events", "create,patch", ""},
		},
		// the source ConfigMaps of replacements, from a label-selected
		// watch, and the Events on those the limits refuse
		"kpatch-system-kpatch-webhook-sources": {
			{"", "configmaps", "list,watch", ""},
			{"events.k8s.io", "events", "create,patch", ""},
		},
		// Events on patched objects, in their namespaces
		"kpatch-system-kpatch-webhook-patch-events": {{"events.k8s.io", "events", "create,patch", ""}},
	}[name]
	if !slices.Equal(got, want) {
		return fmt.Sprintf("grants %v, want %v", got, want)
	}
	if strings.HasSuffix(name, "-cabundle") || strings.HasSuffix(name, "-rules") || strings.HasSuffix(name, "-path-token") {
		if !slices.Equal(rules[0].ResourceNames, []string{"kpatch-system-kpatch-webhook"}) {
			return "not limited to its own webhook configuration"
		}
	}
	return ""
}

// all converts every rendered object of kind, by name.
func all[T any](t *testing.T, objs []*unstructured.Unstructured, kind string) map[string]*T {
	t.Helper()
	out := map[string]*T{}
	for _, u := range objs {
		if u.GetKind() != kind {
			continue
		}
		v := new(T)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, v); err != nil {
			t.Fatal(err)
		}
		out[u.GetName()] = v
	}
	return out
}

func TestNetworkPolicy(t *testing.T) {
	if np := typed[networkingv1.NetworkPolicy](t, render(t, nil), "NetworkPolicy"); np != nil {
		t.Error("a NetworkPolicy by default")
	}
	for _, m := range modes {
		if m.name != "closed-doors" {
			continue
		}
		objs := render(t, m.values)
		np := typed[networkingv1.NetworkPolicy](t, objs, "NetworkPolicy")
		if np == nil {
			t.Fatal("no NetworkPolicy")
		}
		d := typed[appsv1.Deployment](t, objs, "Deployment")
		if !labels.SelectorFromSet(np.Spec.PodSelector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Errorf("the policy selects %v, not the webhook's pods", np.Spec.PodSelector.MatchLabels)
		}
		if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) || len(np.Spec.Ingress) != 2 {
			t.Fatalf("policy %+v", np.Spec)
		}
		webhookRule, metricsRule := np.Spec.Ingress[0], np.Spec.Ingress[1]
		if len(webhookRule.Ports) != 1 || webhookRule.Ports[0].Port.String() != "webhook" ||
			len(webhookRule.From) != 1 || webhookRule.From[0].IPBlock == nil || webhookRule.From[0].IPBlock.CIDR != "10.0.0.0/8" {
			t.Errorf("webhook port rule %+v", webhookRule)
		}
		if len(metricsRule.Ports) != 1 || metricsRule.Ports[0].Port.String() != "metrics" || len(metricsRule.From) != 1 ||
			metricsRule.From[0].NamespaceSelector == nil || metricsRule.From[0].NamespaceSelector.MatchLabels["kpatch.dev/metrics"] != "enabled" ||
			metricsRule.From[0].PodSelector != nil {
			t.Errorf("metrics port rule %+v", metricsRule)
		}
	}
}

// TestServiceMonitorScrapesHTTPSWithAToken: the ServiceMonitor scrapes
// over HTTPS, verifies the webhook's CA, and sends a token with
// authorization credentials: by default the token Secret of a
// ServiceAccount of its own, else the Secret it is given.
func TestServiceMonitorScrapesHTTPSWithAToken(t *testing.T) {
	for _, c := range []struct {
		name                  string
		values                map[string]any
		caSecret, secret, key string
		scraperServiceAccount bool
	}{
		{"self-managed", nil, "kpatch-webhook-ca", "kpatch-webhook-metrics-scraper-token", "token", true},
		{"cert-manager", map[string]any{"tls": map[string]any{"certManager": map[string]any{"enabled": true}}}, "kpatch-webhook-tls", "kpatch-webhook-metrics-scraper-token", "token", true},
		{"own secret", map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"credentials": map[string]any{"secretName": "prometheus-token", "key": "t"}}}}, "kpatch-webhook-ca", "prometheus-token", "t", false},
	} {
		values := chartutil.CoalesceTables(map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}}, c.values)
		objs := render(t, values)
		var sm *unstructured.Unstructured
		for _, u := range objs {
			if u.GetKind() == "ServiceMonitor" {
				sm = u
			}
		}
		if sm == nil {
			t.Fatalf("%s: no ServiceMonitor", c.name)
		}
		endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		if len(endpoints) != 1 {
			t.Fatalf("%s: endpoints %v", c.name, endpoints)
		}
		e := endpoints[0].(map[string]any)
		secret, _, _ := unstructured.NestedString(e, "tlsConfig", "ca", "secret", "name")
		key, _, _ := unstructured.NestedString(e, "tlsConfig", "ca", "secret", "key")
		server, _, _ := unstructured.NestedString(e, "tlsConfig", "serverName")
		if e["scheme"] != "https" || secret != c.caSecret || key != "ca.crt" || server != "kpatch-webhook.kpatch-system.svc" {
			t.Errorf("%s: endpoint %v", c.name, e)
		}
		if _, deprecated := e["bearerTokenFile"]; deprecated {
			t.Errorf("%s: bearerTokenFile in %v", c.name, e)
		}
		authType, _, _ := unstructured.NestedString(e, "authorization", "type")
		credSecret, _, _ := unstructured.NestedString(e, "authorization", "credentials", "name")
		credKey, _, _ := unstructured.NestedString(e, "authorization", "credentials", "key")
		if authType != "Bearer" || credSecret != c.secret || credKey != c.key {
			t.Errorf("%s: authorization %v", c.name, e["authorization"])
		}
		// the token Secret the chart adds belongs to the scraper's ServiceAccount
		tokens := all[corev1.Secret](t, objs, "Secret")
		sas := all[corev1.ServiceAccount](t, objs, "ServiceAccount")
		token := tokens["kpatch-webhook-metrics-scraper-token"]
		if (token != nil) != c.scraperServiceAccount || (sas["kpatch-webhook-metrics-scraper"] != nil) != c.scraperServiceAccount {
			t.Errorf("%s: scraper ServiceAccount and token %v %v", c.name, sas, tokens)
		}
		if token != nil && (token.Type != corev1.SecretTypeServiceAccountToken || token.Annotations[corev1.ServiceAccountNameKey] != "kpatch-webhook-metrics-scraper") {
			t.Errorf("%s: token Secret %+v", c.name, token)
		}
	}
}

func TestModesRenderTheirObjects(t *testing.T) {
	want := map[string][]string{
		"cert-manager":           {"Certificate", "Certificate", "Issuer", "Issuer"},
		"tenants":                {"ClusterRole", "ClusterRoleBinding"},
		"monitoring-and-example": {"ConfigMap", "PrometheusRule", "ServiceMonitor"},
	}
	for _, m := range modes {
		got := kinds(render(t, m.values))
		for _, k := range want[m.name] {
			if !slices.Contains(got, k) {
				t.Errorf("%s: no %s among %v", m.name, k, got)
			}
		}
		if m.name != "cert-manager" && (slices.Contains(got, "Certificate") || slices.Contains(got, "Issuer")) {
			t.Errorf("%s: cert-manager objects rendered: %v", m.name, got)
		}
	}
}

// moduleDir returns where the Go module cache holds a module version.
func moduleDir(t *testing.T, module string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", module, err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", module, err, out)
	}
	return info.Dir
}

// TestServerSideDryRun creates every object of every mode with a
// server-side dry run and strict field validation on the real API server,
// and the pod of the Deployment in a namespace that enforces the
// restricted Pod Security profile.
func TestServerSideDryRun(t *testing.T) {
	if reason := cluster.SkipReason(); reason != "" {
		t.Skip(reason)
	}
	certManager := moduleDir(t, "github.com/cert-manager/cert-manager@"+certManagerVersion(t))
	promOperator := moduleDir(t, "github.com/prometheus-operator/prometheus-operator@v0.85.0")
	env := &envtest.Environment{
		BinaryAssetsDirectory: cluster.ControlPlaneDir(),
		CRDInstallOptions: envtest.CRDInstallOptions{
			ErrorIfPathMissing: true,
			Paths: []string{
				filepath.Join(certManager, "deploy/crds"),
				filepath.Join(promOperator, "example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"),
				filepath.Join(promOperator, "example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml"),
			},
		},
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ns := range []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: namespace}},
		{ObjectMeta: metav1.ObjectMeta{Name: "restricted", Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}},
	} {
		if err := c.Create(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range modes {
		for _, u := range render(t, m.values) {
			mapping, err := c.RESTMapper().RESTMapping(u.GroupVersionKind().GroupKind(), u.GroupVersionKind().Version)
			if err != nil {
				t.Errorf("%s: %s: %v", m.name, u.GetKind(), err)
				continue
			}
			if mapping.Scope.Name() == meta.RESTScopeNameNamespace && u.GetNamespace() == "" {
				u.SetNamespace(namespace)
			}
			if err := c.Create(ctx, u, client.DryRunAll, client.FieldValidation("Strict")); err != nil {
				t.Errorf("%s: %s %s: %v", m.name, u.GetKind(), u.GetName(), err)
			}
		}
		d := typed[appsv1.Deployment](t, render(t, m.values), "Deployment")
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "webhook", Namespace: "restricted"}, Spec: d.Spec.Template.Spec}
		pod.Spec.ServiceAccountName = ""
		if err := c.Create(ctx, pod, client.DryRunAll); err != nil {
			t.Errorf("%s: the webhook pod violates the restricted profile: %v", m.name, err)
		}
	}
}

// certManagerVersion is the cert-manager version the product's go.mod
// requires (the module root, two directories up), whose module ships the
// CRDs.
func certManagerVersion(t *testing.T) string {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/cert-manager/cert-manager")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func TestMain(m *testing.M) {
	flag.Parse()
	if _, err := os.Stat(chartDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

var update = flag.Bool("update", false, "rewrite config/default from the chart")

const kustomizeDir = "../../config/default"

// kustomizeManifests renders the chart's default install as plain
// manifests: Helm's own labels become kustomize's.
func kustomizeManifests(t *testing.T) []byte {
	var out bytes.Buffer
	out.WriteString("# Generated from charts/kpatch-webhook with its default values (release kpatch,\n# namespace kpatch-system) by `go test -run TestKustomizeConfigMatchesChart -update` in test/chart; do not edit.\n")
	for _, u := range render(t, nil) {
		labels := u.GetLabels()
		delete(labels, "helm.sh/chart")
		labels["app.kubernetes.io/managed-by"] = "kustomize"
		u.SetLabels(labels)
		b, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString("---\n")
		out.Write(b)
	}
	return out.Bytes()
}

// TestKustomizeConfigMatchesChart keeps config/default, the same install
// for kustomize users, identical to what the chart renders.
func TestKustomizeConfigMatchesChart(t *testing.T) {
	want := kustomizeManifests(t)
	path := filepath.Join(kustomizeDir, "kpatch-webhook.yaml")
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the chart's rendering; run go test -run TestKustomizeConfigMatchesChart -update in test/chart", path)
	}
}
