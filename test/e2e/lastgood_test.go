package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kregistry "kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/test/cluster"
)

// The last good store test's names: its webhook runs as the
// ServiceAccount lastgood, with a store, a Lease and a registry
// ConfigMap of its own.
const (
	lgAccount = "lastgood"
	lgStore   = "lastgood-store"
	// lgPathToken is the Secret of that webhook's path token
	lgPathToken = "lastgood-path-token"
	lgFile      = "lastgood_f.kpatch"
)

// lastGoodRBAC is what the chart grants the webhook (charts/kpatch-webhook
// templates/rbac.yaml, with --namespace-sources=false), for the
// ServiceAccount lastgood: on ConfigMaps, read in the registry namespace
// and create, update and patch of the store's name only; Namespaces and
// the CRDs' schemas (--crd-schemas) read.
func lastGoodRBAC() []client.Object {
	ns := cluster.RegistryNamespace
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: lgAccount, Namespace: ns}}
	return []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: lgAccount, Namespace: ns}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: lgAccount, Namespace: ns}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{lgStore}, Verbs: []string{"create", "update", "patch"}},
			// the chart's grant of its path token's Secret, by name
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{lgPathToken}, Verbs: []string{"get", "create", "patch"}},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{lgAccount}, Verbs: []string{"get", "update", "patch"}},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
			{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: lgAccount, Namespace: ns},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: lgAccount}, Subjects: subjects},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: lgAccount}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get", "list", "watch"}},
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: lgAccount},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: lgAccount}, Subjects: subjects},
	}
}

// accountKubeconfig writes a kubeconfig of the ServiceAccount account of
// the registry namespace and returns its path and a client of it.
func accountKubeconfig(t *testing.T, account string) (string, client.Client) {
	t.Helper()
	token, err := env.Token(context.Background(), cluster.RegistryNamespace, account)
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: env.Config.Host, CertificateAuthorityData: env.Config.CAData}
	cfg.AuthInfos[account] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: account}
	cfg.CurrentContext = "e2e"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	restCfg := rest.CopyConfig(env.Config)
	restCfg.CertData, restCfg.KeyData, restCfg.BearerToken = nil, nil, token
	c, err := client.New(restCfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return path, c
}

// lastGoodAnswer posts the AdmissionReview of Deployment lastgood/kept
// (replicas: 1) to w and returns the replicas its patch sets ("-" when
// none).
func lastGoodAnswer(w *cluster.Webhook) (string, error) {
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "kept", Operation: admissionv1.Create, Namespace: "lastgood", Name: "kept",
			Kind:   metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Object: runtime.RawExtension{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"kept","namespace":"lastgood"},"spec":{"replicas":1}}`)},
		},
	}
	body, err := json.Marshal(review)
	if err != nil {
		return "", err
	}
	resp, err := env.HTTPClient().Post(fmt.Sprintf("https://127.0.0.1:%d%s?timeout=3s", w.Port, w.Path("/mutate")), "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var got admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK || got.Response == nil {
		return "", fmt.Errorf("HTTP %s: %v", resp.Status, err)
	}
	var ops []struct {
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	_ = json.Unmarshal(got.Response.Patch, &ops)
	for _, op := range ops {
		if op.Path == "/spec/replicas" {
			return fmt.Sprint(op.Value), nil
		}
	}
	return "-", nil
}

func getStore(c client.Client) (*corev1.ConfigMap, error) {
	var cm corev1.ConfigMap
	err := c.Get(context.Background(), client.ObjectKey{Namespace: cluster.RegistryNamespace, Name: lgStore}, &cm)
	return &cm, err
}

// TestLastGoodStoreIsCreatedByNameAndTrustsOnlyTheRegistry runs a webhook
// as a ServiceAccount whose only write on ConfigMaps is create, update and
// patch of the store's name. That Role cannot create the store with a
// plain create; the webhook creates it (a server-side apply), and creates
// it again after it is deleted, with the last good version of a broken
// file; it creates its path token's Secret the same way, with get,
// create and patch of its name only (the chart's grant). A version
// written into the store that the registry never held (its
// digests right, the registry ConfigMap's uid, an earlier
// resourceVersion of it) is not applied, is reported, and leaves the store.
func TestLastGoodStoreIsCreatedByNameAndTrustsOnlyTheRegistry(t *testing.T) {
	ctx := context.Background()
	for _, o := range lastGoodRBAC() {
		if err := env.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	kubeconfig, account := accountKubeconfig(t, lgAccount)
	// RBAC cannot narrow a plain create to a name: the Role does not allow it
	err := account.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: lgStore, Namespace: cluster.RegistryNamespace}})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("a plain create of the store by the ServiceAccount: %v, want forbidden", err)
	}

	registry(t, "lastgood", map[string]string{"f.kpatch": "[lastgood/deployment.kept]\nreplicas: 2\n"})
	var log lockedBuffer
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// a path token of its own, in a Secret it creates by name; reviews are
	// posted to it, the API server's configuration is the main webhook's
	w, err := env.StartWebhook(ctx, webhookBin, port, &log, "--kubeconfig", kubeconfig, "--namespace-sources=false",
		"--leader-elect", "--leader-election-id="+lgAccount, "--last-good-configmap="+lgStore,
		"--path-token-secret="+lgPathToken, "--webhook-configuration-name=")
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	defer w.Stop()
	defer func() {
		if t.Failed() {
			t.Logf("webhook log:\n%s", log.String())
		}
	}()

	stores := func(want string) func() error {
		return func() error {
			cm, err := getStore(env.Client)
			if err != nil {
				return err
			}
			if !strings.Contains(cm.Data[lgFile], want) {
				return fmt.Errorf("the store holds %q", cm.Data[lgFile])
			}
			return nil
		}
	}
	eventually(t, 30*time.Second, stores("replicas: 2"))
	cm, _ := getStore(env.Client)
	applied := false
	for _, m := range cm.ManagedFields {
		applied = applied || m.Manager == "kpatch-webhook" && m.Operation == metav1.ManagedFieldsOperationApply
	}
	if !applied {
		t.Errorf("the store was not created by a server-side apply of kpatch-webhook: %+v", cm.ManagedFields)
	}
	var good corev1.ConfigMap
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: cluster.RegistryNamespace, Name: "lastgood"}, &good); err != nil {
		t.Fatal(err)
	}

	registry(t, "lastgood", map[string]string{"f.kpatch": "[lastgood/deployment.kept\nreplicas 5\n"})
	eventually(t, 20*time.Second, func() error {
		if !strings.Contains(log.String(), `"registry file does not compile","file":"lastgood/f.kpatch"`) {
			return fmt.Errorf("the broken edit is not seen yet")
		}
		return nil
	})
	if got, err := lastGoodAnswer(w); err != nil || got != "2" {
		t.Fatalf("after the broken edit: replicas %s (%v), want the last good 2", got, err)
	}

	// deleted, the store is created again, with the broken file's last good version
	deleted := cm.UID
	if err := env.Client.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, func() error {
		cm, err := getStore(env.Client)
		if err != nil {
			return err
		}
		if cm.UID == deleted || !strings.Contains(cm.Data[lgFile], "replicas: 2") {
			return fmt.Errorf("the store holds %q", cm.Data[lgFile])
		}
		return nil
	})
	if got, err := lastGoodAnswer(w); err != nil || got != "2" {
		t.Errorf("after the store was created again: replicas %s (%v), want 2", got, err)
	}

	// a version the registry never held, planted by someone who may write the store
	planted := "[lastgood/deployment.kept]\nreplicas: 99\n"
	cm, err = getStore(env.Client)
	if err != nil {
		t.Fatal(err)
	}
	var idx map[string]any
	if err := json.Unmarshal([]byte(cm.Data["index.json"]), &idx); err != nil {
		t.Fatal(err)
	}
	idx["files"].(map[string]any)[lgFile] = map[string]any{"sha256": kregistry.Digest(planted), "values": kregistry.Digest(""), "uid": string(good.UID), "resourceVersion": good.ResourceVersion}
	b, _ := json.Marshal(idx)
	cm.Data["index.json"], cm.Data[lgFile], cm.Data["values."+kregistry.Digest("")] = string(b), planted, ""
	if err := env.Client.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, func() error {
		if !strings.Contains(log.String(), "not one the registry held") {
			return fmt.Errorf("the planted version is not refused yet")
		}
		cm, err := getStore(env.Client)
		if err != nil {
			return err
		}
		if strings.Contains(cm.Data[lgFile], "99") {
			return fmt.Errorf("the store still holds the planted version")
		}
		return nil
	})
	if got, err := lastGoodAnswer(w); err != nil || got == "99" {
		t.Errorf("after the plant: replicas %s (%v)", got, err)
	}
	if strings.Contains(strings.ToLower(log.String()), "forbidden") {
		t.Errorf("the webhook was refused something by RBAC:\n%s", log.String())
	}
}
