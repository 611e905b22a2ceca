package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// warningLog keeps the warnings the API server returns.
type warningLog struct {
	mu   sync.Mutex
	list []string
}

func (w *warningLog) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warningLog) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

// registryValidation is the registry's ValidatingWebhookConfiguration as
// the chart installs it, calling url, as the harness installs the
// mutating one (envtest's URL in place of the Service), named name, for
// the ConfigMaps labelled kpatch.dev/registry=label.
func registryValidation(name, url, label string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	ignore, none := admissionregistrationv1.Ignore, admissionregistrationv1.SideEffectClassNone
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "validate-registry.kpatch.dev",
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &none,
			FailurePolicy:           &ignore,
			TimeoutSeconds:          ptr.To[int32](5),
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: env.CAData},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": cluster.RegistryNamespace}},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"kpatch.dev/registry": label}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
			}},
		}},
	}
}

// warningClient is a client of the control plane that keeps the warnings
// the API server returns.
func warningClient(t *testing.T) (client.Client, *warningLog) {
	t.Helper()
	warnings := &warningLog{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = warnings
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c, warnings
}

func registryCM(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: cluster.RegistryNamespace, Labels: map[string]string{"kpatch.dev/registry": "true"}}, Data: data}
}

// TestRegistryEditsAreChecked: with the registry's validation installed,
// the API server refuses a registry ConfigMap whose file does not compile,
// on create, update and server-side dry run, with file:line:column in the
// message; accepts a good one, and returns what lint warns about as
// warnings; and accepts a broken one when the webhook cannot be reached
// (failurePolicy Ignore).
func TestRegistryEditsAreChecked(t *testing.T) {
	ctx := context.Background()
	url := fmt.Sprintf("https://127.0.0.1:%d%s", env.Port, webhook.Path("/validate-registry"))
	vwc := registryValidation("kpatch", url, "true")
	if err := env.Client.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	var created []string
	t.Cleanup(func() {
		_ = env.Client.Delete(ctx, vwc)
		for _, name := range created {
			_ = env.Client.Delete(ctx, registryCM(name, nil))
		}
	})
	c, warnings := warningClient(t)
	broken := map[string]string{"ok.kpatch": "[deployment.web]\nlabels.ok: \"yes\"\n", "scale.kpatch": "[deployment.web]\nreplcas: 3\n"}
	const want = "checked/scale.kpatch:2:1: "
	// the API server reads a new configuration within a second or so
	eventually(t, 20*time.Second, func() error {
		err := c.Create(ctx, registryCM("checked", broken), client.DryRunAll)
		if err == nil {
			return fmt.Errorf("a broken ConfigMap was accepted")
		}
		return nil
	})
	refused := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: a broken registry ConfigMap was accepted", what)
		}
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "did you mean replicas?") {
			t.Errorf("%s: refused with %v; want Invalid with %q", what, err, want)
		}
	}
	refused("create --dry-run=server", c.Create(ctx, registryCM("checked", broken), client.DryRunAll))
	refused("create", c.Create(ctx, registryCM("checked", broken)))

	good := map[string]string{"ok.kpatch": "[deployment.web]\nlabels.ok: \"yes\"\n"}
	if err := c.Create(ctx, registryCM("checked", good)); err != nil {
		t.Fatalf("a good registry ConfigMap: %v", err)
	}
	created = append(created, "checked")
	if w := warnings.take(); len(w) != 0 {
		t.Errorf("warnings on a good ConfigMap: %q", w)
	}
	var cur corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: cluster.RegistryNamespace, Name: "checked"}, &cur); err != nil {
		t.Fatal(err)
	}
	cur.Data = broken
	refused("update", c.Update(ctx, cur.DeepCopy()))

	// a delete by index: admitted, with lint's warning
	cur.Data = map[string]string{"ok.kpatch": "[deployment.web.containers.name=app]\nargs.0[delete]:\n"}
	if err := c.Update(ctx, cur.DeepCopy()); err != nil {
		t.Fatalf("an edit lint warns about: %v", err)
	}
	if w := strings.Join(warnings.take(), "\n"); !strings.Contains(w, "checked/ok.kpatch:2:6: warning: not idempotent") {
		t.Errorf("warnings %q, want lint's not idempotent warning", w)
	}

	// the webhook unreachable: the edit is accepted
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(vwc), vwc); err != nil {
		t.Fatal(err)
	}
	vwc.Webhooks[0].ClientConfig.URL = ptr.To(fmt.Sprintf("https://127.0.0.1:%d/validate-registry", port))
	if err := env.Client.Update(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, func() error {
		return c.Create(ctx, registryCM("unchecked", broken), client.DryRunAll)
	})
	if err := c.Create(ctx, registryCM("unchecked", broken)); err != nil {
		t.Fatalf("with the webhook unreachable, a broken ConfigMap was refused: %v", err)
	}
	created = append(created, "unchecked")
}
