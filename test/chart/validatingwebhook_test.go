package chart

import (
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestRegistryValidation: in every mode the chart installs the registry's
// ValidatingWebhookConfiguration beside the mutating one, of the same
// name (self-managed TLS writes both caBundles), failing open, for CREATE
// and UPDATE of the ConfigMaps of the registry namespace (every namespace
// with tenants) that carry the registry's label; registry.validate.enabled
// false leaves it out.
func TestRegistryValidation(t *testing.T) {
	for _, m := range modes {
		objs := render(t, m.values)
		vwc := typed[admissionregistrationv1.ValidatingWebhookConfiguration](t, objs, "ValidatingWebhookConfiguration")
		mwc := typed[admissionregistrationv1.MutatingWebhookConfiguration](t, objs, "MutatingWebhookConfiguration")
		if vwc == nil || len(vwc.Webhooks) != 1 {
			t.Fatalf("%s: no registry validation", m.name)
		}
		if vwc.Name != mwc.Name {
			t.Errorf("%s: the validating configuration is %s, the mutating one %s: self-managed TLS keeps the caBundle of the configurations of its one name", m.name, vwc.Name, mwc.Name)
		}
		w := vwc.Webhooks[0]
		if *w.FailurePolicy != admissionregistrationv1.Ignore || *w.SideEffects != admissionregistrationv1.SideEffectClassNone || *w.TimeoutSeconds != 5 {
			t.Errorf("%s: failurePolicy %s, sideEffects %s, timeout %d", m.name, *w.FailurePolicy, *w.SideEffects, *w.TimeoutSeconds)
		}
		// with the path token, no path: the webhook writes its own
		pathToken := m.name != "client-ca"
		if w.ClientConfig.Service == nil || pathToken != (w.ClientConfig.Service.Path == nil) || !pathToken && *w.ClientConfig.Service.Path != "/validate-registry" ||
			w.ClientConfig.Service.Name != mwc.Webhooks[0].ClientConfig.Service.Name {
			t.Errorf("%s: client config %+v", m.name, w.ClientConfig)
		}
		if len(w.Rules) != 1 || !slices.Equal(w.Rules[0].Resources, []string{"configmaps"}) ||
			!slices.Equal(w.Rules[0].Operations, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}) {
			t.Errorf("%s: rules %+v", m.name, w.Rules)
		}
		if inject, want := vwc.Annotations["cert-manager.io/inject-ca-from"], mwc.Annotations["cert-manager.io/inject-ca-from"]; inject != want {
			t.Errorf("%s: inject-ca-from %q, the mutating configuration's %q", m.name, inject, want)
		}
		tenants := m.name == "tenants"
		if tenants != (w.NamespaceSelector == nil) {
			t.Errorf("%s: namespaceSelector %v", m.name, w.NamespaceSelector)
		} else if !tenants && w.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != namespace {
			t.Errorf("%s: namespaceSelector %v, want the release namespace", m.name, w.NamespaceSelector)
		}
		if sel, err := metav1.LabelSelectorAsSelector(w.ObjectSelector); err != nil || sel.String() != "kpatch.dev/registry=true" {
			t.Errorf("%s: objectSelector %v (%v)", m.name, sel, err)
		}
	}
	off := render(t, map[string]any{"registry": map[string]any{"validate": map[string]any{"enabled": false}}})
	if slices.Contains(kinds(off), "ValidatingWebhookConfiguration") {
		t.Error("registry.validate.enabled: false renders the validation")
	}
}

// TestRegistryValidationSelectsWhatTheWebhookReads: the objectSelector
// made from registry.selector selects the label sets the webhook's
// --registry-selector does; a set-based selector fails the rendering with
// a message.
func TestRegistryValidationSelectsWhatTheWebhookReads(t *testing.T) {
	sets := []labels.Set{
		{}, {"kpatch.dev/registry": "true"}, {"kpatch.dev/registry": "false"}, {"team": "a"},
		{"kpatch.dev/registry": "true", "team": "a"}, {"kpatch.dev/registry": "true", "team": "b", "legacy": ""},
	}
	for _, selector := range []string{"kpatch.dev/registry=true", "kpatch.dev/registry==true, team=a", "kpatch.dev/registry,team!=b", "kpatch.dev/registry=true,!legacy"} {
		objs := render(t, map[string]any{"registry": map[string]any{"selector": selector}})
		vwc := typed[admissionregistrationv1.ValidatingWebhookConfiguration](t, objs, "ValidatingWebhookConfiguration")
		got, err := metav1.LabelSelectorAsSelector(vwc.Webhooks[0].ObjectSelector)
		if err != nil {
			t.Fatalf("%s: %v", selector, err)
		}
		want, err := labels.Parse(selector)
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range sets {
			if got.Matches(set) != want.Matches(set) {
				t.Errorf("%s: the objectSelector %s matches %v: %v, the webhook's selector: %v", selector, got, set, got.Matches(set), want.Matches(set))
			}
		}
	}
	ch := loadChart(t)
	rv, err := chartutil.ToRenderValues(ch, map[string]any{"registry": map[string]any{"selector": "env in (a, b)"}},
		chartutil.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true}, capabilities())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Render(ch, rv); err == nil || !strings.Contains(err.Error(), "set-based term") {
		t.Errorf("a set-based selector: %v", err)
	}
}
