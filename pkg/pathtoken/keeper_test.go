package pathtoken

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

const (
	testNamespace = "kpatch-system"
	testSecret    = "kpatch-webhook-path-token"
	testConfig    = "kpatch"
)

// keeper is a Keeper of c that writes the configurations named testConfig.
func keeper(t *testing.T, c client.Client) *Keeper {
	t.Helper()
	k, err := New(Options{Namespace: testNamespace, SecretName: testSecret, WebhookConfiguration: testConfig,
		MutatePath: "/mutate", ValidatePath: "/validate-registry", Reader: c, Writer: c, FieldManager: "kpatch-webhook", Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// configurations are the webhook's configurations as the chart installs
// them (a Service without a path) and as a harness does (a URL of
// /validate-registry), with a webhook of another path beside.
func configurations() []client.Object {
	return []client.Object{
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: testConfig}, Webhooks: []admissionregistrationv1.MutatingWebhook{
			{Name: "mutate.kpatch.dev", ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "kpatch-webhook", Namespace: testNamespace}}},
			{Name: "other.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "other", Namespace: "x", Path: ptr.To("/other")}}},
		}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: testConfig}, Webhooks: []admissionregistrationv1.ValidatingWebhook{
			{Name: "validate-registry.kpatch.dev", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:9443/validate-registry")}},
		}},
	}
}

func secret(t *testing.T, c client.Client) *corev1.Secret {
	t.Helper()
	var s corev1.Secret
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: testNamespace, Name: testSecret}, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func paths(t *testing.T, c client.Client) (mutate, other, validate string) {
	t.Helper()
	var m admissionregistrationv1.MutatingWebhookConfiguration
	var v admissionregistrationv1.ValidatingWebhookConfiguration
	if err := c.Get(context.Background(), client.ObjectKey{Name: testConfig}, &m); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(context.Background(), client.ObjectKey{Name: testConfig}, &v); err != nil {
		t.Fatal(err)
	}
	return ptr.Deref(m.Webhooks[0].ClientConfig.Service.Path, ""), ptr.Deref(m.Webhooks[1].ClientConfig.Service.Path, ""), ptr.Deref(v.Webhooks[0].ClientConfig.URL, "")
}

// TestSyncCreatesTheSecretAndWritesThePaths: the first sync creates an
// immutable Secret with a valid token and writes the paths that carry it
// into both configurations, leaving another webhook's path alone; a path
// set back is written again; a second replica serves the same token.
func TestSyncCreatesTheSecretAndWritesThePaths(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(configurations()...).Build()
	k := keeper(t, c)
	if err := k.Ready(nil); err == nil {
		t.Error("ready before the first sync")
	}
	if err := k.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	s := secret(t, c)
	token := string(s.Data[Key])
	if err := Check(token); err != nil || !ptr.Deref(s.Immutable, false) || k.Token() != token {
		t.Fatalf("the Secret holds %q (%v), immutable %v; the keeper serves %q", token, err, s.Immutable, k.Token())
	}
	if err := k.Ready(nil); err != nil {
		t.Error(err)
	}
	mutate, other, validate := paths(t, c)
	if mutate != "/mutate/"+token || other != "/other" || validate != "https://127.0.0.1:9443/validate-registry/"+token {
		t.Errorf("paths %q, %q, %q", mutate, other, validate)
	}
	// set back, as a chart or a GitOps tool would: written again
	var m admissionregistrationv1.MutatingWebhookConfiguration
	if err := c.Get(ctx, client.ObjectKey{Name: testConfig}, &m); err != nil {
		t.Fatal(err)
	}
	m.Webhooks[0].ClientConfig.Service.Path = ptr.To("/mutate")
	if err := c.Update(ctx, &m); err != nil {
		t.Fatal(err)
	}
	if err := k.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if mutate, _, _ := paths(t, c); mutate != "/mutate/"+token {
		t.Errorf("after a revert: %q", mutate)
	}
	second := keeper(t, c)
	if err := second.Sync(ctx); err != nil || second.Token() != token {
		t.Errorf("a second replica serves %q (%v), want the first one's", second.Token(), err)
	}
}

// TestSyncKeepsTheTokenOfTheReplicaThatCreatedTheSecret: a replica that
// found no Secret, but whose create comes second (the API server refuses
// to change an immutable Secret's data), serves the token of the first.
func TestSyncKeepsTheTokenOfTheReplicaThatCreatedTheSecret(t *testing.T) {
	ctx := context.Background()
	first := "first-replica-token-0123456789abcdef"
	store := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(configurations()...).Build()
	missed := false
	c := interceptor.NewClient(store, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*corev1.Secret); ok && !missed {
				// the other replica creates it between this replica's
				// read and its create
				missed = true
				winner := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: testSecret, Namespace: testNamespace}, Immutable: ptr.To(true), Data: map[string][]byte{Key: []byte(first)}}
				if err := c.Create(ctx, winner); err != nil {
					return err
				}
				return apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, key.Name)
			}
			return c.Get(ctx, key, obj, opts...)
		},
		Apply: func(context.Context, client.WithWatch, runtime.ApplyConfiguration, ...client.ApplyOption) error {
			return apierrors.NewInvalid(schema.GroupKind{Kind: "Secret"}, testSecret, nil)
		},
	})
	k := keeper(t, c)
	if err := k.Sync(ctx); err != nil || k.Token() != first {
		t.Errorf("serves %q (%v), want the first replica's", k.Token(), err)
	}
}

// TestSyncRefusesASecretWithoutAToken: an invalid token is an error that
// says what to do, and a replica keeps serving the token it read before.
func TestSyncRefusesASecretWithoutAToken(t *testing.T) {
	ctx := context.Background()
	bad := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: testSecret, Namespace: testNamespace}, Data: map[string][]byte{Key: []byte("short")}}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(append(configurations(), bad)...).Build()
	k := keeper(t, c)
	err := k.Sync(ctx)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "delete the Secret") || k.Ready(nil) == nil {
		t.Fatalf("a Secret with a short token: %v, ready %v", err, k.Ready(nil))
	}
	good := strings.Repeat("a", MinLength)
	bad.Data[Key] = []byte(good)
	if err := c.Update(ctx, bad); err != nil {
		t.Fatal(err)
	}
	if err := k.Sync(ctx); err != nil || k.Token() != good {
		t.Fatalf("serves %q (%v)", k.Token(), err)
	}
	bad.Data[Key] = []byte("has a space in it, so not a path segment")
	if err := c.Update(ctx, bad); err != nil {
		t.Fatal(err)
	}
	if err := k.Sync(ctx); !errors.Is(err, ErrInvalid) || k.Token() != good {
		t.Errorf("after the token broke: serves %q (%v), want the one before", k.Token(), err)
	}
}

// TestSyncWithoutAConfigurationWritesNone: with no configuration name the
// keeper reads (and creates) the token only.
func TestSyncWithoutAConfigurationWritesNone(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(configurations()...).Build()
	k, err := New(Options{Namespace: testNamespace, SecretName: testSecret, Reader: c, Writer: c, Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Sync(context.Background()); err != nil || k.Token() == "" {
		t.Fatalf("token %q, %v", k.Token(), err)
	}
	if mutate, _, validate := paths(t, c); mutate != "" || validate != "https://127.0.0.1:9443/validate-registry" {
		t.Errorf("paths written: %q %q", mutate, validate)
	}
}

func TestTokenPath(t *testing.T) {
	for _, c := range []struct {
		current, want string
		ok            bool
	}{
		{"", "/mutate/T", true},
		{"/", "/mutate/T", true},
		{"/mutate", "/mutate/T", true},
		{"/mutate/old", "/mutate/T", true},
		{"/mutate/T", "/mutate/T", true},
		{"//mutate", "/mutate/T", true},
		{"/x/../mutate/", "/mutate/T", true},
		{"/mutated", "", false},
		{"/other/mutate", "", false},
	} {
		if got, ok := tokenPath(c.current, "/mutate", "T"); got != c.want || ok != c.ok {
			t.Errorf("tokenPath(%q) = %q, %v; want %q, %v", c.current, got, ok, c.want, c.ok)
		}
	}
}

func TestNewTokenIsAToken(t *testing.T) {
	a, b := NewToken(), NewToken()
	if Check(a) != nil || Check(b) != nil || a == b {
		t.Errorf("%q %q", a, b)
	}
}
