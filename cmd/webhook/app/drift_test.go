package app

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

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
