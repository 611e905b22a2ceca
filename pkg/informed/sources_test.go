package informed

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
)

// nameOf is a decoded object's metadata.name.
func nameOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	return name
}

// TestSourceConfigMapsResync: an update of the same version (an
// informer's resync) keeps the list requests read; a new version makes a
// new one, and the old one stays as it was.
func TestSourceConfigMapsResync(t *testing.T) {
	var s SourceConfigMaps
	cm := sourceCM("shop", "a")
	cm.UID, cm.ResourceVersion = "u", "1"
	s.OnAdd(cm, true)
	before := s.ConfigMaps("shop")
	s.OnUpdate(cm, cm.DeepCopy())
	if got := s.ConfigMaps("shop"); &got[0] != &before[0] {
		t.Error("a resync made a new list")
	}
	next := sourceCM("shop", "b")
	next.UID, next.ResourceVersion = "u", "2"
	s.OnUpdate(cm, next)
	if got := s.ConfigMaps("shop"); len(got) != 1 || got[0]["data"].(map[string]any)["region"] != "b" || before[0]["data"].(map[string]any)["region"] != "a" {
		t.Errorf("after the update: %v, before: %v", got, before)
	}
}

// TestSourceConfigMapsConcurrent reads a namespace's list while the
// informer adds ConfigMaps to it (go test -race): every list read is by
// name and holds at least the ConfigMaps added before.
func TestSourceConfigMapsConcurrent(t *testing.T) {
	var s SourceConfigMaps
	const n = 300
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			cm := sourceCM("shop", "r")
			cm.Name = fmt.Sprintf("s-%03d", (i*7)%n)
			s.OnAdd(cm, false)
		}
	})
	for range 2 {
		wg.Go(func() {
			last := 0
			for last < n {
				got := s.ConfigMaps("shop")
				if len(got) < last || !slices.IsSortedFunc(got, func(a, b map[string]any) int { return strings.Compare(nameOf(a), nameOf(b)) }) {
					t.Errorf("%d ConfigMaps after %d, or not by name", len(got), last)
					return
				}
				last = len(got)
			}
		})
	}
	wg.Wait()
}

// sourceCM is a source ConfigMap settings of namespace, with a region.
func sourceCM(namespace, region string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: namespace, Labels: map[string]string{SourceLabel: "true"}}, Data: map[string]string{"region": region}}
}

// TestSourceConfigMaps keeps the labelled ConfigMaps by namespace and
// name, through updates and deletions.
func TestSourceConfigMaps(t *testing.T) {
	var s SourceConfigMaps
	s.OnAdd(sourceCM("shop", "a"), true)
	b := sourceCM("shop", "b")
	b.Name = "another"
	s.OnAdd(b, true)
	before := s.ConfigMaps("shop")
	s.OnUpdate(nil, sourceCM("shop", "c"))
	got := s.ConfigMaps("shop")
	if len(got) != 2 || nameOf(got[0]) != "another" || got[1]["data"].(map[string]any)["region"] != "c" || got[1]["kind"] != "ConfigMap" {
		t.Fatalf("after the update: %v", got)
	}
	if before[1]["data"].(map[string]any)["region"] != "a" {
		t.Error("an update changed a list a request may hold")
	}
	s.OnDelete(b)
	s.OnDelete(toolscacheTombstone(sourceCM("shop", "c")))
	if got := s.ConfigMaps("shop"); len(got) != 0 {
		t.Errorf("after the deletions: %v", got)
	}
}

func toolscacheTombstone(obj any) any {
	return toolscache.DeletedFinalStateUnknown{Key: "shop/settings", Obj: obj}
}
