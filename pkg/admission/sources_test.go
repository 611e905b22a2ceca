package admission

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
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
