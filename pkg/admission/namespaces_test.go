package admission

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestCachedNamespaces(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(&corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"tier": "gold"}},
	}).Build()
	ns := CachedNamespaces{Reader: c}
	got, ok := ns.Namespace("team-a")
	if !ok || got.Labels["tier"] != "gold" {
		t.Fatalf("team-a: %v %v", got, ok)
	}
	for _, name := range []string{"missing", ""} {
		if got, ok := ns.Namespace(name); ok {
			t.Errorf("%q: found %v", name, got)
		}
	}
	if _, ok := (CachedNamespaces{}).Namespace("team-a"); ok {
		t.Error("no reader: found a namespace")
	}
}
