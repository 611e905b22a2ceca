package status

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

// served are the resources the fake API server serves.
var served = []*metav1.APIResourceList{
	{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"list", "update"}},
		{Name: "pods/status", Kind: "Pod", Namespaced: true, Verbs: []string{"update"}},
		{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: []string{"list", "update"}},
		{Name: "namespaces", Kind: "Namespace", Verbs: []string{"list", "update"}},
	}},
	{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
		{Name: "deployments", Kind: "Deployment", Namespaced: true, Verbs: []string{"list", "update"}},
	}},
}

// newScan is a scan of namespace shop on a cluster that holds objs and
// serves the resources of served, its client and its warnings.
func newScan(objs ...runtime.Object) (*scan, *fake.FakeDynamicClient, *bytes.Buffer) {
	c := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		{Version: "v1", Resource: "configmaps"}: "ConfigMapList", {Version: "v1", Resource: "pods"}: "PodList",
		{Version: "v1", Resource: "namespaces"}: "NamespaceList", {Group: "apps", Version: "v1", Resource: "deployments"}: "DeploymentList",
	}, objs...)
	var warn bytes.Buffer
	return &scan{client: c, discovery: &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: served}},
		namespace: "shop", registryNamespace: DefaultRegistryNamespace, selector: labels.SelectorFromSet(labels.Set{"kpatch.dev/registry": "true"}), warn: &warn}, c, &warn
}

func registryConfigMap(name string, data map[string]any) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{
		"name": name, "namespace": DefaultRegistryNamespace, "labels": map[string]any{"kpatch.dev/registry": "true"}}, "data": data}
}

// TestScanFindsTheStaleObjectsOfANamespace: --scan compiles the registry
// ConfigMaps, lists the kinds its files target in the namespace and
// admits each object as an UPDATE: a Deployment created before its file
// is stale with the file's fields, one the files leave as it is is not;
// a file that does not compile is a warning and blocks none of the
// others; the files read the namespace's values.
func TestScanFindsTheStaleObjectsOfANamespace(t *testing.T) {
	deployment := func(name string, replicas int64) map[string]any {
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name, "namespace": "shop", "uid": "uid-" + name},
			"spec": map[string]any{"replicas": replicas, "template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}}}}}
	}
	objs := []runtime.Object{}
	for _, o := range []map[string]any{
		registryConfigMap("reg", map[string]any{
			"replicas.kpatch": "[deployment.*]\nreplicas: 3\nlabels.team: ${namespace.labels.team}\n",
			"broken.kpatch":   "[deployment.web\n",
		}),
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shop", "labels": map[string]any{"team": "t1"}}},
		deployment("web", 1),
		func() map[string]any {
			d := deployment("done", 3)
			d["metadata"].(map[string]any)["labels"] = map[string]any{"team": "t1"}
			return d
		}(),
	} {
		objs = append(objs, &unstructured.Unstructured{Object: o})
	}
	sc, c, warn := newScan(objs...)
	st, err := sc.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(warn.Bytes(), []byte("broken.kpatch")) || !bytes.Contains(warn.Bytes(), []byte("left out of the scan")) {
		t.Errorf("warnings %q: want the file that does not compile", warn.String())
	}
	st.Namespaces[0].ScanTime = "T"
	var out bytes.Buffer
	if err := Print(&out, st, ""); err != nil {
		t.Fatal(err)
	}
	want := `shop: 1 stale object (scan, scan of T)
  Deployment web (apps/v1)
    reg/replicas.kpatch: /metadata/labels, /spec/replicas
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	var listed []string
	for _, a := range c.Actions() {
		if a.GetVerb() == "list" {
			listed = append(listed, a.GetResource().Resource+"/"+a.GetNamespace())
		}
	}
	if want := "configmaps/kpatch-system configmaps/shop configmaps/kpatch-system deployments/shop"; strings.Join(listed, " ") != want {
		t.Errorf("listed %v, want %s: the kinds the registry targets, no others", listed, want)
	}
}

// TestScanSaysWhatItCannotScan: a registry whose files target no served
// kind scans nothing and says so; a discovery that fails is an error; no
// registry ConfigMap is an error that names the namespace and selector.
func TestScanSaysWhatItCannotScan(t *testing.T) {
	ctx := context.Background()
	gadgets := &unstructured.Unstructured{Object: registryConfigMap("reg", map[string]any{"g.kpatch": "[gadget.web]\nspec.size: 3\n"})}
	sc, _, warn := newScan(gadgets)
	if st, err := sc.run(ctx); err != nil || len(st.Namespaces[0].Objects) != 0 || !strings.Contains(warn.String(), "target no kind the cluster serves") {
		t.Errorf("no served kind: %v, %+v, warnings %q", err, st, warn.String())
	}
	sc, _, _ = newScan(gadgets)
	sc.discovery.(*fakediscovery.FakeDiscovery).PrependReactor("get", "group", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("discovery down")
	})
	if _, err := sc.run(ctx); err == nil || !strings.Contains(err.Error(), "discovering the kinds the registry targets: discovery down") {
		t.Errorf("discovery down: %v", err)
	}
	sc, _, _ = newScan()
	if _, err := sc.run(ctx); !errors.Is(err, ErrNoRegistry) || !strings.Contains(err.Error(), `labelled kpatch.dev/registry=true in namespace "kpatch-system"`) {
		t.Errorf("no registry: %v", err)
	}
}
