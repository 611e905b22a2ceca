package app

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/drift"
	"kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/pkg/rules"
)

func compiled(t *testing.T, data map[string]string) *registry.Registry {
	t.Helper()
	var c registry.Compiler
	b := c.Build([]corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "reg", Namespace: "kpatch-system"}, Data: data}}, nil)
	if len(b.Problems) != 0 {
		t.Fatal(b.Problems)
	}
	return b.Registry
}

// TestDriftKinds: the scan lists each resource the files that apply on
// UPDATE target once, in the version discovery serves first, and only
// those it may list; a file of CREATE only makes no kind.
func TestDriftKinds(t *testing.T) {
	reg := compiled(t, map[string]string{
		"web.kpatch":    "[deployment.web]\nreplicas: 2\n",
		"create.kpatch": "# kpatch:operations: CREATE\n[service.*]\nlabels.a: b\n",
		"widget.kpatch": "[widget.example.com/*]\nspec.size: 1\n",
	})
	verbs := []string{"create", "update", "list", "patch"}
	served := []rules.ServedResource{
		{GroupVersionResource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Kind: "Deployment", Namespaced: true, Verbs: verbs},
		{GroupVersionResource: schema.GroupVersionResource{Group: "apps", Version: "v1beta2", Resource: "deployments"}, Kind: "Deployment", Namespaced: true, Verbs: verbs},
		{GroupVersionResource: schema.GroupVersionResource{Version: "v1", Resource: "services"}, Kind: "Service", Namespaced: true, Verbs: verbs},
		{GroupVersionResource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, Kind: "Widget", Namespaced: true, Verbs: []string{"create", "update"}},
	}
	got := (&driftLoop{}).kinds(reg, served)
	want := []drift.Kind{{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kinds %+v\nwant %+v", got, want)
	}
}

// TestRegistryVersion: the registry version changes when a file is
// edited, added or removed, and is the same for the same files.
func TestRegistryVersion(t *testing.T) {
	one := map[string]string{"a.kpatch": "[deployment.web]\nreplicas: 2\n"}
	v := registryVersion(compiled(t, one))
	if len(v) != 12 || registryVersion(compiled(t, one)) != v {
		t.Fatalf("version %q: not 12 hex digits, or not the same for the same files", v)
	}
	for name, data := range map[string]map[string]string{
		"edited": {"a.kpatch": "[deployment.web]\nreplicas: 3\n"},
		"added":  {"a.kpatch": "[deployment.web]\nreplicas: 2\n", "b.kpatch": "[deployment.web]\nlabels.a: b\n"},
		"none":   {},
	} {
		if registryVersion(compiled(t, data)) == v {
			t.Errorf("%s: the same version %s", name, v)
		}
	}
}

// stuckDiscovery is an API server that does not answer discovery until
// released.
type stuckDiscovery struct {
	discovery.ServerResourcesInterface
	asked   chan struct{}
	release chan struct{}
}

func (s stuckDiscovery) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	close(s.asked)
	<-s.release
	return nil, nil, nil
}

// TestDriftRunEndsWithItsTerm: a scan waiting for discovery from an API
// server that does not answer (frozen) ends when its term does, so that
// the leader's term ends and the elector campaigns again.
func TestDriftRunEndsWithItsTerm(t *testing.T) {
	reg := compiled(t, map[string]string{"web.kpatch": "[deployment.web]\nreplicas: 2\n"})
	d := stuckDiscovery{asked: make(chan struct{}), release: make(chan struct{})}
	defer close(d.release)
	l := &driftLoop{
		o: &Options{DriftInterval: time.Millisecond}, registry: func() *registry.Registry { return reg }, handler: &admission.Handler{},
		whoAmI:   func(context.Context) (authenticationv1.UserInfo, error) { return authenticationv1.UserInfo{}, nil },
		discover: func(ctx context.Context) ([]rules.ServedResource, error) { return discover(ctx, d) },
		changed:  make(chan struct{}, 1), log: logr.Discard(),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		l.run(ctx)
		close(done)
	}()
	<-d.asked
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute): // a deadlock's guard, not a speed
		t.Fatal("the scan outlived its term, waiting for discovery")
	}
}

// TestDriftWritesAndDeletesReports: the scan lists through the API server
// (dynamicObjects); the report of a namespace with stale objects is
// written with its results, kpatch's reports of the other namespaces are
// deleted, another report is left alone; a truncated scan deletes none;
// without the CRD nothing is written.
func TestDriftWritesAndDeletesReports(t *testing.T) {
	report := func(ns, name string, managed bool) *unstructured.Unstructured {
		r := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "wgpolicyk8s.io/v1alpha2", "kind": "PolicyReport",
			"metadata": map[string]any{"name": name, "namespace": ns}}}
		if managed {
			r.SetLabels(map[string]string{"app.kubernetes.io/managed-by": "kpatch"})
		}
		return r
	}
	deployment := func(ns, name, file string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": name, "namespace": ns, "uid": "uid-" + name, "labels": map[string]any{"file": file}}}}
	}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	served := []rules.ServedResource{{GroupVersionResource: policyReports, Kind: "PolicyReport", Namespaced: true}}
	stale := drift.AdmitterFunc(func(_ context.Context, _ drift.Kind, obj map[string]any) (drift.Admission, error) {
		file, _, _ := unstructured.NestedString(obj, "metadata", "labels", "file")
		if file == "" {
			return drift.Admission{}, nil
		}
		return drift.Admission{Files: []drift.FileChange{{File: file, Fields: []string{"/spec/replicas"}}}}, nil
	})
	for _, c := range []struct {
		name       string
		maxObjects int
		served     []rules.ServedResource
		want       []string // the reports left, namespace/name
	}{
		{"complete", 0, served, []string{"b/other"}},
		{"truncated", 2, served, []string{"b/kpatch-drift", "b/other", "gone/kpatch-drift"}},
		{"no CRD", 0, nil, []string{"b/kpatch-drift", "b/other", "gone/kpatch-drift"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{policyReports: "PolicyReportList", deployments: "DeploymentList"},
				report("b", "kpatch-drift", true), report("b", "other", false), report("gone", "kpatch-drift", true),
				deployment("a", "web", "drift/web.kpatch"), deployment("b", "api", ""), deployment("b", "db", ""))
			sc := drift.Scanner{Lister: dynamicObjects{dyn}, Admitter: stale, Kinds: []drift.Kind{{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment"}},
				Namespaces: []string{"a", "b"}, Version: "v1", MaxObjects: c.maxObjects}
			r, err := sc.Scan(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if r.Truncated() != (c.maxObjects > 0) {
				t.Fatalf("truncated %v", r.Truncated())
			}
			// the fake applies no Unstructured: the apply is recorded
			applied := map[string]int{} // results, by namespace
			dyn.PrependReactor("patch", "policyreports", func(a k8stesting.Action) (bool, runtime.Object, error) {
				p := a.(k8stesting.PatchAction)
				var body map[string]any
				if err := json.Unmarshal(p.GetPatch(), &body); err != nil || p.GetPatchType() != types.ApplyPatchType || p.GetName() != "kpatch-drift" {
					t.Errorf("patch %s %s/%s: %v", p.GetPatchType(), p.GetNamespace(), p.GetName(), err)
				}
				results, _ := body["results"].([]any)
				applied[p.GetNamespace()] = len(results)
				return true, &unstructured.Unstructured{Object: body}, nil
			})
			l := &driftLoop{dyn: dyn, log: testr.New(t)}
			l.writeReports(context.Background(), r, c.served)
			list, err := dyn.Resource(policyReports).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, item := range list.Items {
				got = append(got, item.GetNamespace()+"/"+item.GetName())
			}
			if want := map[string]int{"a": 1}; c.served != nil && !reflect.DeepEqual(applied, want) || c.served == nil && len(applied) > 0 {
				t.Errorf("applied %v (results by namespace)", applied)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("reports %v, want %v", got, c.want)
			}
		})
	}
}
