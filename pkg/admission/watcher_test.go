package admission

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

var registryLabels = map[string]string{"kpatch.dev/registry": "true"}

// recorded is one Event a recorder saw.
type recorded struct{ regarding, kind, reason, note string }

// eventLog records Events.
type eventLog struct {
	mu     sync.Mutex
	events []recorded
}

func (l *eventLog) Eventf(regarding runtime.Object, _ runtime.Object, kind, reason, _ string, note string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := regarding.(client.Object)
	name := o.GetName()
	if ns := o.GetNamespace(); ns != "kpatch-system" {
		name = ns + "/" + name // a tenant's
	}
	l.events = append(l.events, recorded{name, kind, reason, fmt.Sprintf(note, args...)})
}

func (l *eventLog) take() []recorded {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.events
	l.events = nil
	return out
}

// replica is one webhook replica on a shared fake API server.
func replica(c client.Client, leader bool) (*Watcher, *eventLog) {
	var elected chan struct{}
	if elected = make(chan struct{}); leader {
		close(elected)
	}
	log := &eventLog{}
	return &Watcher{
		Client: c, Namespace: "kpatch-system", Selector: labels.SelectorFromSet(registryLabels),
		Store:   &LastGoodStore{Reader: c, Writer: c, Namespace: "kpatch-system", Name: "kpatch-webhook-last-good", Log: logr.Discard()},
		Elected: elected, Recorder: log, Metrics: metrics.NewMetrics(prometheus.NewRegistry()), Log: logr.Discard(),
	}, log
}

func registryConfigMap(name string, data map[string]string) *corev1.ConfigMap {
	cm := configMap(name, data)
	cm.ResourceVersion = ""
	cm.Labels = registryLabels
	return &cm
}

func syncOnce(t *testing.T, w *Watcher) {
	t.Helper()
	if err := w.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func edit(t *testing.T, c client.Client, name string, data map[string]string) {
	t.Helper()
	var cm corev1.ConfigMap
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "kpatch-system", Name: name}, &cm); err != nil {
		t.Fatal(err)
	}
	cm.Data = data
	if err := c.Update(context.Background(), &cm); err != nil {
		t.Fatal(err)
	}
}

// TestReplicasAgreeAfterABrokenEdit: the leader stores the good version;
// after a broken edit the leader, a follower that saw the good version and
// a follower started after the edit all apply it; only the leader writes
// and records Events.
func TestReplicasAgreeAfterABrokenEdit(t *testing.T) {
	c := newHistoryClient(t, registryConfigMap("reg", map[string]string{"f.kpatch": goodFile}))
	leader, leaderEvents := replica(c, true)
	follower, followerEvents := replica(c, false)
	syncOnce(t, follower)
	if _, err := follower.Store.get(context.Background()); err != nil {
		t.Fatal(err)
	}
	if cm, _ := follower.Store.get(context.Background()); cm != nil {
		t.Fatal("a follower wrote the store")
	}
	syncOnce(t, leader)
	if cm := storeConfigMap(t, c); cm.Data["reg_f.kpatch"] != goodFile {
		t.Fatalf("the leader did not store the good version: %v", cm.Data)
	}
	edit(t, c, "reg", map[string]string{"f.kpatch": brokenFile})
	late, _ := replica(c, false)
	for _, w := range []*Watcher{leader, follower, late} {
		syncOnce(t, w)
		if got := replicas(t, w.Current()); got != "2" {
			t.Errorf("replicas %s, want the last good 2", got)
		}
		if v := testutil.ToFloat64(w.Metrics.LastGoodFiles); v != 1 {
			t.Errorf("kpatch_registry_last_good_files %v", v)
		}
	}
	if ev := followerEvents.take(); len(ev) != 0 {
		t.Errorf("a follower recorded Events: %+v", ev)
	}
	ev := leaderEvents.take()
	if len(ev) != 1 || ev[0].reason != ReasonPatchCompileFailed || !strings.Contains(ev[0].note, "f.kpatch does not compile; its last good version still applies: reg/f.kpatch:1:1") {
		t.Errorf("leader's Events %+v", ev)
	}
	// the file leaves the registry: the leader drops its version
	edit(t, c, "reg", map[string]string{"g.kpatch": goodFile3})
	syncOnce(t, leader)
	if data := storeConfigMap(t, c).Data; data["reg_f.kpatch"] != "" || data["reg_g.kpatch"] != goodFile3 {
		t.Errorf("the store holds %v", keys(data))
	}
}

// TestStoreIsNeverARegistryConfigMap: the store is left out of the
// registry even when the selector matches it.
func TestStoreIsNeverARegistryConfigMap(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(registryConfigMap("reg", map[string]string{"f.kpatch": goodFile})).Build()
	w, _ := replica(c, true)
	w.Selector = labels.Everything()
	syncOnce(t, w)
	syncOnce(t, w)
	if n := len(w.Current().Files()); n != 1 {
		t.Errorf("%d files: %+v", n, w.Current().Files())
	}
}

func TestSyncKeepsFileSeriesToTheRegistry(t *testing.T) {
	ctx := context.Background()
	cm := registryConfigMap("reg", map[string]string{"a.kpatch": "[deployment.*]\nreplicas: 1\n", "b.kpatch": "[pod.*]\nlabels.a: b\n"})
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(cm).Build()
	w, _ := replica(c, true)
	syncOnce(t, w)
	if n := testutil.CollectAndCount(w.Metrics.FileApplications); n != 10 {
		t.Errorf("%d series, want 5 results of 2 files", n)
	}
	delete(cm.Data, "b.kpatch")
	edit(t, c, "reg", cm.Data)
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(w.Metrics.FileApplications); n != 5 {
		t.Errorf("%d series after b.kpatch left, want 5", n)
	}
}

// TestProblemsMakeOneEventPerConfigMap: five files failing in one sync
// make one Event listing three and counting the rest.
func TestProblemsMakeOneEventPerConfigMap(t *testing.T) {
	data := map[string]string{}
	for i := range 5 {
		data[fmt.Sprintf("%d.kpatch", i)] = "nonsense\n"
	}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(registryConfigMap("reg", data), registryConfigMap("other", map[string]string{"x.kpatch": "nonsense\n"})).Build()
	w, events := replica(c, true)
	syncOnce(t, w)
	ev := events.take()
	if len(ev) != 2 {
		t.Fatalf("%d Events: %+v", len(ev), ev)
	}
	for _, e := range ev {
		if e.regarding == "reg" && (strings.Count(e.note, "does not compile") != 3 || !strings.HasSuffix(e.note, "and 2 more")) {
			t.Errorf("note %q", e.note)
		}
	}
	if v := testutil.ToFloat64(w.Metrics.CompileErrors); v != 6 {
		t.Errorf("compile errors %v", v)
	}
}

func TestLimitsMakeEventsAndMetrics(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(registryConfigMap("reg", map[string]string{"1.kpatch": goodFile, "2.kpatch": goodFile3})).Build()
	w, events := replica(c, true)
	w.Limits = registry.Limits{MaxFiles: 1}
	syncOnce(t, w)
	ev := events.take()
	if len(ev) != 1 || ev[0].reason != ReasonRegistryLimitExceeded || !strings.Contains(ev[0].note, "2.kpatch is refused; it does not apply: reg/2.kpatch: the registry holds more files") {
		t.Errorf("Events %+v", ev)
	}
	if v := testutil.ToFloat64(w.Metrics.OverLimitFiles.WithLabelValues(registry.LimitFiles)); v != 1 {
		t.Errorf("over limit %v", v)
	}
}

// TestConflictsAreCappedAndAggregated: 150 files that all set replicas
// conflict 11,175 times, on one field: the report and the metric count
// one contested field, one Event (to the ConfigMap that wins) names it, at
// most 11 log lines; a sync that changes no file does not search again.
func TestConflictsAreCappedAndAggregated(t *testing.T) {
	var objs []client.Object
	for _, cm := range syntheticRegistry(150, true) {
		objs = append(objs, registryConfigMap(cm.Name, cm.Data))
	}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(objs...).Build()
	w, events := replica(c, true)
	var lines []string
	w.Log = funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{})
	syncOnce(t, w)
	r := w.Conflicts()
	if r.Total != 1 || len(r.First) != 1 {
		t.Errorf("%d conflicts, %d kept", r.Total, len(r.First))
	}
	if v := testutil.ToFloat64(w.Metrics.Conflicts); v != 1 {
		t.Errorf("kpatch_registry_conflicts %v", v)
	}
	var conflictEvents []recorded
	for _, e := range events.take() {
		if e.reason == ReasonPatchConflict {
			conflictEvents = append(conflictEvents, e)
		}
	}
	if len(conflictEvents) != 1 || len(conflictEvents[0].note) > maxNoteBytes || !strings.Contains(conflictEvents[0].note, "set by 150 files") ||
		!strings.Contains(conflictEvents[0].note, "... 147 more") {
		t.Errorf("conflict Events %+v", conflictEvents)
	}
	if n := countContaining(lines, "conflict"); n > maxConflictLogLines+2 {
		t.Errorf("%d conflict log lines", n)
	}
	syncOnce(t, w)
	if w.Conflicts() != r {
		t.Error("a sync that changed no file searched the conflicts again")
	}
	if n := testutil.CollectAndCount(w.Metrics.ConflictAnalysis); n != 1 {
		t.Errorf("%d series of the analysis time", n)
	}
}

func countContaining(lines []string, word string) int {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, word) {
			n++
		}
	}
	return n
}

// TestNotStoredIsReportedOnce: a file the store cannot hold makes one
// Event on its ConfigMap and the metric, not one per sync.
func TestNotStoredIsReportedOnce(t *testing.T) {
	long := strings.Repeat("c", 240)
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(registryConfigMap(long, map[string]string{strings.Repeat("k", 20) + ".kpatch": goodFile})).Build()
	w, events := replica(c, true)
	syncOnce(t, w)
	syncOnce(t, w)
	ev := events.take()
	if len(ev) != 1 || ev[0].reason != ReasonLastGoodNotStored {
		t.Errorf("Events %+v", ev)
	}
	if v := testutil.ToFloat64(w.Metrics.NotStoredFiles); v != 1 {
		t.Errorf("not stored %v", v)
	}
}
