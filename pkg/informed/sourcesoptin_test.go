package informed

import (
	"context"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// fakeAPI is the source ConfigMaps an API server holds, by namespace and
// name, and the lists SourceConfigMaps asked it for.
type fakeAPI struct {
	cms    map[string]map[string]*corev1.ConfigMap
	listed []string
	// during, if set, runs while a namespace is listed, after the list
	// was taken: the watch reporting changes meanwhile.
	during func(namespace string)
}

func (a *fakeAPI) list(_ context.Context, namespace string) ([]*corev1.ConfigMap, error) {
	a.listed = append(a.listed, namespace)
	var out []*corev1.ConfigMap
	for _, cm := range a.cms[namespace] {
		out = append(out, cm.DeepCopy())
	}
	if a.during != nil {
		a.during(namespace)
	}
	return out, nil
}

// put stores cm in the API server and returns it.
func (a *fakeAPI) put(cm *corev1.ConfigMap) *corev1.ConfigMap {
	if a.cms == nil {
		a.cms = map[string]map[string]*corev1.ConfigMap{}
	}
	if a.cms[cm.Namespace] == nil {
		a.cms[cm.Namespace] = map[string]*corev1.ConfigMap{}
	}
	a.cms[cm.Namespace][cm.Name] = cm
	return cm
}

// all is every ConfigMap of the API server, as a reflector lists them.
func (a *fakeAPI) all() []any {
	var out []any
	for _, byName := range a.cms {
		for _, cm := range byName {
			out = append(out, cm.DeepCopy())
		}
	}
	return out
}

// namedCM is a source ConfigMap of namespace named name, version rv,
// with a value of size bytes.
func namedCM(namespace, name, rv string, size int) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID("uid-" + namespace + "-" + name), ResourceVersion: rv,
		Labels: map[string]string{SourceLabel: "true"}}, Data: map[string]string{"v": string(make([]byte, size))}}
}

func labelledNS(name string, optedIn bool) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if optedIn {
		ns.Labels = map[string]string{"kpatch.dev/inject": "enabled"}
	}
	return ns
}

// drainLoads runs the lists queued, until none is.
func drainLoads(t *testing.T, s *SourceConfigMaps) {
	t.Helper()
	for s.optIn.queue.Len() > 0 {
		ns, _ := s.optIn.queue.Get()
		if err := s.load(context.Background(), ns); err != nil {
			t.Fatal(err)
		}
		s.optIn.queue.Forget(ns)
		s.optIn.queue.Done(ns)
	}
}

// names is the names of the ConfigMaps of namespace that s keeps.
func names(s *SourceConfigMaps, namespace string) []string {
	var out []string
	for _, obj := range s.ConfigMaps(namespace) {
		out = append(out, nameOf(obj))
	}
	return out
}

func newOptedIn(api *fakeAPI, limits SourceLimits) *SourceConfigMaps {
	return NewOptInSourceConfigMaps(labels.SelectorFromSet(labels.Set{"kpatch.dev/inject": "enabled"}), api.list, limits, "kpatch-system")
}

// TestSourceConfigMapsOptIn: the ConfigMaps of a namespace not opted in
// are not kept, neither from the first list nor as they arrive; a
// namespace that opts out drops them, one that opts in is listed; the
// registry namespace is kept whatever its labels.
func TestSourceConfigMapsOptIn(t *testing.T) {
	var api fakeAPI
	for _, ns := range []string{"shop", "other", "kpatch-system"} {
		api.put(namedCM(ns, "settings", "1", 10))
	}
	s := newOptedIn(&api, SourceLimits{})
	h := s.NamespaceHandler()
	h.OnAdd(labelledNS("shop", true), true)
	h.OnAdd(labelledNS("other", false), true)
	h.OnAdd(labelledNS("kpatch-system", false), true)
	if err := s.Replace(api.all(), "1"); err != nil {
		t.Fatal(err)
	}
	if got := names(s, "shop"); !slices.Equal(got, []string{"settings"}) {
		t.Errorf("shop: %v", got)
	}
	if got := names(s, "kpatch-system"); !slices.Equal(got, []string{"settings"}) {
		t.Errorf("the registry namespace: %v", got)
	}
	if got := names(s, "other"); got != nil {
		t.Errorf("a namespace not opted in: %v", got)
	}
	_ = s.Add(api.put(namedCM("other", "more", "2", 10)))
	if _, ok := s.byNamespace.Load("other"); ok || len(api.listed) != 0 {
		t.Errorf("a ConfigMap arriving for a namespace not opted in is kept (%v), or listed %v", ok, api.listed)
	}

	h.OnUpdate(nil, labelledNS("shop", false)) // opts out
	if _, ok := s.byNamespace.Load("shop"); ok {
		t.Error("a namespace that opted out keeps its ConfigMaps")
	}
	_ = s.Add(api.put(namedCM("shop", "late", "3", 10)))
	if got := names(s, "shop"); got != nil {
		t.Errorf("after opting out: %v", got)
	}

	h.OnUpdate(nil, labelledNS("other", true)) // opts in
	drainLoads(t, s)
	if got := names(s, "other"); !slices.Equal(got, []string{"more", "settings"}) || !slices.Equal(api.listed, []string{"other"}) {
		t.Errorf("after opting in: %v, listed %v", got, api.listed)
	}
	h.OnDelete(labelledNS("other", true))
	if got := names(s, "other"); got != nil {
		t.Errorf("a deleted namespace keeps %v", got)
	}
}

// TestSourceConfigMapsLoadRace: what the watch reports while a namespace
// that opted in is listed is newer than the list, and wins.
func TestSourceConfigMapsLoadRace(t *testing.T) {
	var api fakeAPI
	s := newOptedIn(&api, SourceLimits{})
	_ = s.Replace(nil, "1")
	api.put(namedCM("shop", "a", "1", 10))
	api.put(namedCM("shop", "b", "1", 10))
	api.during = func(ns string) {
		newer := namedCM(ns, "a", "2", 20)
		_ = s.Update(api.put(newer))
		_ = s.Delete(api.cms[ns]["b"])
		delete(api.cms[ns], "b")
		_ = s.Add(api.put(namedCM(ns, "c", "3", 10)))
	}
	s.NamespaceHandler().OnAdd(labelledNS("shop", true), false)
	drainLoads(t, s)
	got := s.ConfigMaps("shop")
	if len(got) != 2 || nameOf(got[0]) != "a" || nameOf(got[1]) != "c" {
		t.Fatalf("after the list: %v", names(s, "shop"))
	}
	if v := got[0]["data"].(map[string]any)["v"].(string); len(v) != 20 {
		t.Error("the list's older version of a replaced the watch's")
	}
}

// refusals records the refusals of s.
func refusals(s *SourceConfigMaps) *[]string {
	var out []string
	s.Refused = func(r SourceRefusal) {
		out = append(out, fmt.Sprintf("%s/%s:%s", r.ConfigMap.Namespace, r.ConfigMap.Name, r.Reason))
	}
	return &out
}

// TestSourceConfigMapsLimitCount: a namespace keeps its first
// MaxConfigMaps ConfigMaps by name, whatever the order they arrive in;
// the others are refused (reason count); when a kept one goes, the next
// by name is read again and kept.
func TestSourceConfigMapsLimitCount(t *testing.T) {
	var api fakeAPI
	s := newOptedIn(&api, SourceLimits{MaxConfigMaps: 3})
	refused := refusals(s)
	_ = s.Replace(nil, "1")
	s.NamespaceHandler().OnAdd(labelledNS("shop", true), false)
	drainLoads(t, s)
	for _, name := range []string{"e", "c", "a", "d", "b"} {
		_ = s.Add(api.put(namedCM("shop", name, "1", 10)))
	}
	if got := names(s, "shop"); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("kept %v, want the first 3 by name", got)
	}
	if want := []string{"shop/e:count", "shop/d:count"}; !slices.Equal(*refused, want) {
		t.Errorf("refused %v, want %v", *refused, want)
	}
	_ = s.Add(api.put(namedCM("shop", "f", "1", 10)))
	if got := names(s, "shop"); !slices.Equal(got, []string{"a", "b", "c"}) || (*refused)[len(*refused)-1] != "shop/f:count" {
		t.Errorf("after f: kept %v, refused %v", names(s, "shop"), *refused)
	}
	_ = s.Delete(api.cms["shop"]["b"])
	delete(api.cms["shop"], "b")
	drainLoads(t, s)
	if got := names(s, "shop"); !slices.Equal(got, []string{"a", "c", "d"}) {
		t.Errorf("after b went: kept %v, want a c d", got)
	}
	// the first list of a reflector counts the same way
	t2 := newOptedIn(&api, SourceLimits{MaxConfigMaps: 3})
	t2.NamespaceHandler().OnAdd(labelledNS("shop", true), false)
	_ = t2.Replace(api.all(), "2")
	if got := names(t2, "shop"); !slices.Equal(got, []string{"a", "c", "d"}) {
		t.Errorf("from a list: kept %v", got)
	}
}

// TestSourceConfigMapsLimitSize: a namespace keeps its ConfigMaps by
// name while their bytes fit MaxBytes; the first that does not fit, and
// those after it, are refused (reason size); one that shrinks makes room.
func TestSourceConfigMapsLimitSize(t *testing.T) {
	var api fakeAPI
	s := newOptedIn(&api, SourceLimits{MaxBytes: 1000})
	refused := refusals(s)
	s.NamespaceHandler().OnAdd(labelledNS("shop", true), false)
	api.put(namedCM("shop", "a", "1", 400))
	api.put(namedCM("shop", "b", "1", 600))
	api.put(namedCM("shop", "c", "1", 10))
	_ = s.Replace(api.all(), "1")
	if got := names(s, "shop"); !slices.Equal(got, []string{"a"}) {
		t.Errorf("kept %v, want a", got)
	}
	if want := []string{"shop/b:size", "shop/c:size"}; !slices.Equal(*refused, want) {
		t.Errorf("refused %v, want %v", *refused, want)
	}
	_ = s.Update(api.put(namedCM("shop", "a", "2", 100)))
	drainLoads(t, s)
	if got := names(s, "shop"); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("after a shrank: kept %v", got)
	}
	_ = s.Update(api.put(namedCM("shop", "a", "3", 900)))
	if got := names(s, "shop"); !slices.Equal(got, []string{"a"}) {
		t.Errorf("after a grew: kept %v", got)
	}
}
