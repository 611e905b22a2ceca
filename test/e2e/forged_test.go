package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// forgedReplacements copies the region of the source ConfigMap
// forged-settings of the admitted object's namespace into an annotation of
// the Deployment forged-web.
const forgedReplacements = `replacements:
- source: {kind: ConfigMap, name: forged-settings, fieldPath: data.region}
  targets:
  - select: {kind: Deployment, name: forged-web}
    fieldPaths: [metadata.annotations.region]
    options: {create: true}
`

// post posts a review to url and returns the HTTP status and what a
// caller reads of the answer: its body, with the patch of an
// AdmissionReview decoded.
func post(t *testing.T, url string, review *admissionv1.AdmissionReview) (int, string) {
	t.Helper()
	body, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := env.HTTPClient().Post(url+"?timeout=5s", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var got admissionv1.AdmissionReview
	if json.Unmarshal(answer, &got) == nil && got.Response != nil {
		answer = append(answer, got.Response.Patch...)
	}
	return resp.StatusCode, string(answer)
}

// reviewOf is the AdmissionReview of a CREATE of obj in namespace ns, as
// the API server sends it.
func reviewOf(t *testing.T, uid, ns string, gvk metav1.GroupVersionKind, resource string, obj client.Object) *admissionv1.AdmissionReview {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID("forged-" + uid), Operation: admissionv1.Create, Namespace: ns, Name: obj.GetName(),
			Kind: gvk, Resource: metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: resource},
			UserInfo: authenticationv1.UserInfo{Username: "system:serviceaccount:" + ns + ":default"}, Object: runtime.RawExtension{Raw: raw},
		},
	}
}

// TestForgedReviewsReadNothingOfANamespace: a pod that reaches the webhook
// port posts reviews it made up, claiming namespace forged-x for objects
// of forged-x, consistently, to the webhook run with its default flags
// (and tenant registries): at /mutate, /validate-registry, or either with
// another token, each is refused with 403 and holds nothing of forged-x's
// source ConfigMap or tenant registry, while the API server's own
// admission in forged-x is patched with both, and its registry validation
// answered; at the path with the token (what the API server calls) the
// same review gets forged-x's data, so the token is all that keeps it out.
// The answer to a registry edit names the tenant's file it contests, but
// never shows its value, even to the API server.
func TestForgedReviewsReadNothingOfANamespace(t *testing.T) {
	ctx := context.Background()
	const ns = "forged-x"
	nonce := fmt.Sprint(time.Now().UnixNano())
	region, tier := "region-"+nonce, "gold-"+nonce
	o := newOwnWebhook(t, "forged-e2e", []admissionregistrationv1.RuleWithOperations{deploymentRule()})
	o.namespace(t, ns)
	markTenant(t, ns, "enabled")
	settings := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "forged-settings", Namespace: ns, Labels: map[string]string{"kpatch.dev/source": "true"}},
		Data:       map[string]string{"region": region},
	}
	if err := env.Client.Create(ctx, settings); err != nil {
		t.Fatal(err)
	}
	o.registry(t, ns, "theirs", map[string]string{"tier.kpatch": "[deployment.forged-web]\nlabels.tier: " + tier + "\n"})
	o.registry(t, cluster.RegistryNamespace, "forged-admin", map[string]string{"region.yaml": forgedReplacements})
	// the registry's validation, as the chart installs it with tenants:
	// at /validate-registry, which the webhook makes carry its token
	vwc := registryValidation("kpatch", fmt.Sprintf("https://127.0.0.1:%d/validate-registry", o.port), "true")
	vwc.Name = o.name
	vwc.Webhooks[0].NamespaceSelector = nil
	vwc.Webhooks[0].ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kpatch.dev/registry": o.name}}
	if err := env.Client.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, vwc) })
	o.start(t, "--tenant-registries", "--namespace-selector", o.name+"=on")

	// the API server's admission in forged-x: patched with forged-x's data
	eventually(t, 30*time.Second, func() error {
		d := deployment(ns, "forged-web")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if d.Labels["tier"] != tier || d.Annotations["region"] != region {
			return fmt.Errorf("labels %v, annotations %v; want tier %s, region %s", d.Labels, d.Annotations, tier, region)
		}
		return nil
	})
	deploymentKind := metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	configMapKind := metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	d := deployment(ns, "forged-web")
	d.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}
	probe := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns, Labels: map[string]string{"kpatch.dev/registry": o.name}},
		Data:       map[string]string{"tier.kpatch": "[deployment.forged-web]\nlabels.tier: probe\n"},
	}
	base := fmt.Sprintf("https://127.0.0.1:%d", o.port)
	for _, c := range []struct {
		path   string
		review *admissionv1.AdmissionReview
	}{
		{"/mutate", reviewOf(t, "m", ns, deploymentKind, "deployments", d)},
		{"/mutate/" + strings.Repeat("x", 43), reviewOf(t, "m", ns, deploymentKind, "deployments", d)},
		{"/validate-registry", reviewOf(t, "v", ns, configMapKind, "configmaps", probe)},
		{"/validate-registry/" + strings.Repeat("x", 43), reviewOf(t, "v", ns, configMapKind, "configmaps", probe)},
	} {
		code, answer := post(t, base+c.path, c.review)
		if code != http.StatusForbidden || strings.Contains(answer, nonce) || strings.Contains(answer, `"response"`) {
			t.Errorf("a forged review at %s: %d %q; want 403 and nothing of %s", c.path, code, answer, ns)
		}
	}
	// the same review at the path with the token, as the API server
	// calls it: forged-x's data, which the forged ones did not get
	code, answer := post(t, base+o.wh.Path("/mutate"), reviewOf(t, "m", ns, deploymentKind, "deployments", d))
	if code != http.StatusOK || !strings.Contains(answer, tier) || !strings.Contains(answer, region) {
		t.Errorf("the review at the path with the token: %d %.500s; want forged-x's tier and region", code, answer)
	}

	// the API server's registry validation in forged-x: answered, naming
	// the contested file without its value
	c, warnings := warningClient(t)
	eventually(t, 30*time.Second, func() error {
		if err := c.Create(ctx, probe.DeepCopy(), client.DryRunAll); err != nil {
			return err
		}
		w := strings.Join(warnings.take(), "\n")
		if !strings.Contains(w, ns+"/probe/tier.kpatch:2:1 to \"probe\", "+ns+"/theirs/tier.kpatch:2:1); "+ns+"/theirs/tier.kpatch:2:1 wins (applies last)") {
			return fmt.Errorf("no warning of the contested field: %q", w)
		}
		if strings.Contains(w, nonce) {
			t.Fatalf("the registry validation showed the value of another ConfigMap's file: %q", w)
		}
		return nil
	})
	var got admissionregistrationv1.ValidatingWebhookConfiguration
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(vwc), &got); err != nil {
		t.Fatal(err)
	}
	if url := ptr.Deref(got.Webhooks[0].ClientConfig.URL, ""); url != base+o.wh.Path("/validate-registry") {
		t.Errorf("the validation's url %q, want the path with the token", url)
	}
}
