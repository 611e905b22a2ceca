package informed

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"kpatch.dev/kpatch/pkg/registry"
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

// TestInformedNamespaces keeps each version of a Namespace from its
// informer's events, with its values annotations parsed, and forgets a
// deleted one; a Namespace not reported yet is read from Missing.
func TestInformedNamespaces(t *testing.T) {
	n := &InformedNamespaces{}
	a := namespace("a", map[string]string{"values.kpatch.dev/team": "x", "other": "y"})
	n.OnAdd(a, true)
	v, ok := n.view("a")
	if got, _ := n.Namespace("a"); !ok || got != a || len(v.values) != 1 || !reflect.DeepEqual(v.values, registry.ValueAnnotations(map[string]string{"values.kpatch.dev/team": "x"})) {
		t.Fatalf("a: %v %+v", got, v)
	}
	// one decoded object per version, shared by the requests
	if obj := v.object(); reflect.ValueOf(obj).Pointer() != reflect.ValueOf(v.object()).Pointer() || obj["kind"] != "Namespace" {
		t.Errorf("converted twice, or not a Namespace: %v", obj)
	}
	a2 := namespace("a", map[string]string{"values.kpatch.dev/team": "z"})
	n.OnUpdate(a, a2)
	if v2, _ := n.view("a"); v2.ns != a2 || !reflect.DeepEqual(v2.values, registry.ValueAnnotations(map[string]string{"values.kpatch.dev/team": "z"})) || objectLabel(v2.object(), "app.kubernetes.io/part-of") != "a-shop" {
		t.Errorf("update: %+v", v2)
	}
	n.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "a", Obj: a2})
	if got, ok := n.Namespace("a"); ok {
		t.Errorf("deleted: %v", got)
	}
	n.Missing = namespaces{"b": namespace("b", nil)}
	if got, ok := n.Namespace("b"); !ok || got.Name != "b" {
		t.Errorf("missing: %v %v", got, ok)
	}
	if _, ok := n.Namespace("c"); ok {
		t.Error("c: found")
	}
}

func objectLabel(obj map[string]any, key string) string {
	md, _ := obj["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	s, _ := labels[key].(string)
	return s
}

// namespaces are Namespaces by name.
type namespaces map[string]*corev1.Namespace

func (n namespaces) Namespace(name string) (*corev1.Namespace, bool) {
	ns, ok := n[name]
	return ns, ok
}

func namespace(name string, annotations map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations, Labels: map[string]string{"app.kubernetes.io/part-of": name + "-shop"}}}
}

// TestInformedNamespaceNames: the names of the Namespaces reported whose
// labels the selector matches, sorted; a deleted one is gone; nil
// selects every one.
func TestInformedNamespaceNames(t *testing.T) {
	n := &InformedNamespaces{}
	for _, ns := range []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"kpatch.dev/inject": "enabled"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "other"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "bank", Labels: map[string]string{"kpatch.dev/inject": "enabled"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "gone", Labels: map[string]string{"kpatch.dev/inject": "enabled"}}},
	} {
		n.OnAdd(ns, false)
	}
	n.OnDelete(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone"}})
	optIn := labels.SelectorFromSet(labels.Set{"kpatch.dev/inject": "enabled"})
	if got := n.Names(optIn); !reflect.DeepEqual(got, []string{"bank", "shop"}) {
		t.Errorf("opted in: %v", got)
	}
	if got := n.Names(nil); !reflect.DeepEqual(got, []string{"bank", "other", "shop"}) {
		t.Errorf("every namespace: %v", got)
	}
}
