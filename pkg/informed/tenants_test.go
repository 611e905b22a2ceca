package informed

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/fake"
)

func tenantNS(name string, marked bool) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	if marked {
		ns.Labels[TenantLabel] = TenantEnabled
	}
	return ns
}

func registryCM(ns, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"kpatch.dev/registry": "true"}},
		Data: map[string]string{"a.kpatch": "[deployment.*]\nlabels.a: b\n"}}
}

// tenantNames lists the namespace/name of the tenants' ConfigMaps, or the error.
func tenantNames(t *TenantRegistries) string {
	cms, err := t.TenantConfigMaps(context.Background())
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, cm := range cms {
		out = append(out, cm.Namespace+"/"+cm.Name)
	}
	return strings.Join(out, ",")
}

// eventually polls f until it returns want, or fails after a while (a
// bound on waiting, not an assertion on time).
func eventually(t *testing.T, what string, f func() string, want string) {
	t.Helper()
	var got string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if got = f(); got == want {
			return
		}
	}
	t.Fatalf("%s: %q, want %q", what, got, want)
}

// TestTenantRegistriesOfMarkedNamespacesOnly: the registry ConfigMaps of
// a namespace are read (one watch of that namespace) only while the
// Namespace is marked; the others are never read; the registry namespace
// is never a tenant; every change asks for a sync.
func TestTenantRegistriesOfMarkedNamespacesOnly(t *testing.T) {
	cs := fake.NewClientset(registryCM("team-a", "mine"), registryCM("team-b", "theirs"), registryCM("kpatch-system", "admin"),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "unlabelled"}})
	changes := make(chan struct{}, 100)
	tr := &TenantRegistries{RegistryNamespace: "kpatch-system", Client: cs, Selector: labels.SelectorFromSet(labels.Set{"kpatch.dev/registry": "true"}),
		Changed: func(context.Context) { changes <- struct{}{} }}
	if _, err := tr.TenantConfigMaps(context.Background()); !errors.Is(err, ErrTenantsNotSynced) {
		t.Errorf("before Start: %v", err)
	}
	a, b := tenantNS("team-a", true), tenantNS("team-b", false)
	tr.OnAdd(a, true)
	tr.OnAdd(b, true)
	tr.OnAdd(tenantNS("kpatch-system", true), true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = tr.Start(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	eventually(t, "marked team-a", func() string { return tenantNames(tr) }, "team-a/mine")
	if got := tr.Tenants(); !slices.Equal(got, []string{"team-a"}) {
		t.Errorf("tenants %v: team-b is not marked, the registry namespace never a tenant", got)
	}
	for _, action := range cs.Actions() {
		if action.GetNamespace() != "team-a" {
			t.Errorf("%s %s in namespace %q: only the marked namespace is read", action.GetVerb(), action.GetResource().Resource, action.GetNamespace())
		}
	}
	<-changes

	// a new ConfigMap of a tenant
	if _, err := cs.CoreV1().ConfigMaps("team-a").Create(ctx, registryCM("team-a", "more"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a new ConfigMap", func() string { return tenantNames(tr) }, "team-a/mine,team-a/more")

	// marking team-b, then unmarking team-a
	b = b.DeepCopy()
	b.Labels[TenantLabel] = TenantEnabled
	tr.OnUpdate(nil, b)
	eventually(t, "team-b marked", func() string { return tenantNames(tr) }, "team-a/mine,team-a/more,team-b/theirs")
	a = a.DeepCopy()
	a.Labels[TenantLabel] = "disabled"
	tr.OnUpdate(nil, a)
	if got := tenantNames(tr); got != "team-b/theirs" {
		t.Errorf("team-a unmarked: %s", got)
	}
	tr.OnDelete(b)
	if got := tenantNames(tr); got != "" {
		t.Errorf("team-b deleted: %s", got)
	}
	if len(changes) == 0 {
		t.Error("no sync asked for after the changes")
	}
}

// TestTenantRegistriesWaitForTheFirstList: until the Namespaces are
// listed (Synced), and the tenants marked then are read, the tenants are
// not known: a sync then fails rather than drop them.
func TestTenantRegistriesWaitForTheFirstList(t *testing.T) {
	synced := false
	tr := &TenantRegistries{Client: fake.NewClientset(registryCM("team-a", "mine")), Selector: labels.Everything(), Synced: func() bool { return synced }}
	tr.OnAdd(tenantNS("team-a", true), true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = tr.Start(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	if _, err := tr.TenantConfigMaps(ctx); !errors.Is(err, ErrTenantsNotSynced) {
		t.Errorf("before the Namespaces are listed: %v", err)
	}
	synced = true
	eventually(t, "after", func() string { return tenantNames(tr) }, "team-a/mine")
}

func TestIsTenantNamespace(t *testing.T) {
	for ns, want := range map[*corev1.Namespace]bool{
		tenantNS("a", true): true, tenantNS("a", false): false, nil: false,
		{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{TenantLabel: "true"}}}: false,
	} {
		if got := IsTenantNamespace(ns); got != want {
			t.Errorf("%v: %v", ns, got)
		}
	}
}
