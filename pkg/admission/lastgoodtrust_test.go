package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// historyClient is a fake API server that keeps, as etcd does, every
// version of the ConfigMaps written through it, and answers a list at an
// exact resourceVersion from them; compacted makes every version before
// it gone (410), as etcd's compaction does.
type historyClient struct {
	client.Client
	mu        sync.Mutex
	versions  []corev1.ConfigMap
	compacted string
	exactAsks int
}

func newHistoryClient(t *testing.T, objs ...*corev1.ConfigMap) *historyClient {
	t.Helper()
	h := &historyClient{Client: fake.NewClientBuilder().WithScheme(scheme.Scheme).Build()}
	for _, o := range objs {
		if err := h.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func (h *historyClient) record(ctx context.Context, obj client.Object) {
	var cm corev1.ConfigMap
	if _, ok := obj.(*corev1.ConfigMap); !ok || h.Get(ctx, client.ObjectKeyFromObject(obj), &cm) != nil {
		return
	}
	h.mu.Lock()
	h.versions = append(h.versions, cm)
	h.mu.Unlock()
}

func (h *historyClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if cm, ok := obj.(*corev1.ConfigMap); ok && cm.UID == "" {
		cm.UID = types.UID("uid-created-" + cm.Name)
	}
	err := h.Client.Create(ctx, obj, opts...)
	if err == nil {
		h.record(ctx, obj)
	}
	return err
}

func (h *historyClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	err := h.Client.Update(ctx, obj, opts...)
	if err == nil {
		h.record(ctx, obj)
	}
	return err
}

func (h *historyClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	o := (&client.ListOptions{}).ApplyOptions(opts)
	if o.Raw == nil || o.Raw.ResourceVersionMatch != metav1.ResourceVersionMatchExact {
		return h.Client.List(ctx, list, opts...)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.exactAsks++
	rv := o.Raw.ResourceVersion
	if c, _ := resourceversion.CompareResourceVersion(rv, h.compacted); h.compacted != "" && c < 0 {
		return apierrors.NewResourceExpired("too old resource version")
	}
	name, _ := o.FieldSelector.RequiresExactMatch("metadata.name")
	// the latest version of the ConfigMap at rv
	var at *corev1.ConfigMap
	for i := range h.versions {
		v := &h.versions[i]
		if c, _ := resourceversion.CompareResourceVersion(v.ResourceVersion, rv); v.Name == name && c <= 0 {
			at = v
		}
	}
	out := list.(*corev1.ConfigMapList)
	out.Items = nil
	if at != nil {
		out.Items = []corev1.ConfigMap{*at.DeepCopy()}
	}
	return nil
}

// plant writes into the store, as someone who may write it, a version of
// reg/f.kpatch that the registry never held, with a well-formed index
// entry: its digests right, the registry ConfigMap's uid, and rv.
func plant(t *testing.T, c client.Client, src, uid, rv string) {
	t.Helper()
	cm := storeConfigMap(t, c)
	var idx storeIndex
	if err := json.Unmarshal([]byte(cm.Data[storeIndexKey]), &idx); err != nil {
		t.Fatal(err)
	}
	idx.Files["reg_f.kpatch"] = storeIndexEntry{SHA256: registry.Digest(src), Values: registry.Digest(""), UID: uid, ResourceVersion: rv}
	b, _ := json.Marshal(idx)
	cm.Data[storeIndexKey], cm.Data["reg_f.kpatch"], cm.Data["values."+registry.Digest("")] = string(b), src, ""
	if err := c.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
}

func registryRV(t *testing.T, c client.Client) (uid, rv string) {
	t.Helper()
	var cm corev1.ConfigMap
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "kpatch-system", Name: "reg"}, &cm); err != nil {
		t.Fatal(err)
	}
	return string(cm.UID), cm.ResourceVersion
}

const plantedFile = "[deployment.web]\nreplicas: 99\n"

// TestStoreRefusesAPlantedVersion: a version written into the store that
// the registry ConfigMap never held applies on no replica (the leader, a
// follower that saw the good versions, one started after the plant), even
// with the right digests, uid and an earlier resourceVersion of the
// ConfigMap; the leader says so in an Event and drops it from the store.
func TestStoreRefusesAPlantedVersion(t *testing.T) {
	c := newHistoryClient(t, registryConfigMap("reg", map[string]string{"f.kpatch": goodFile}))
	uid, goodRV := registryRV(t, c)
	leader, leaderEvents := replica(c, true)
	leader.Metrics = metrics.NewMetrics(prometheus.NewRegistry())
	follower, _ := replica(c, false)
	syncOnce(t, leader)
	syncOnce(t, follower)
	edit(t, c, "reg", map[string]string{"f.kpatch": brokenFile})
	syncOnce(t, leader)
	leaderEvents.take()
	if n := testutil.ToFloat64(leader.Metrics.LastGoodRefused); n != 0 {
		t.Errorf("kpatch_last_good_refused_total %v before a version was planted", n)
	}

	plant(t, c, plantedFile, uid, goodRV)
	late, _ := replica(c, false)
	for name, w := range map[string]*Watcher{"follower": follower, "late": late, "leader": leader} {
		syncOnce(t, w)
		if got := replicas(t, w.Current()); got != "-" {
			t.Errorf("%s: replicas %s: the planted version applied", name, got)
		}
	}
	ev := leaderEvents.take()
	if len(ev) != 1 || !strings.Contains(ev[0].note, "the stored version is not one the registry held") {
		t.Errorf("leader's Events %+v", ev)
	}
	if n := testutil.ToFloat64(leader.Metrics.LastGoodRefused); n != 1 {
		t.Errorf("kpatch_last_good_refused_total %v, want 1", n)
	}
	if data := storeConfigMap(t, c).Data; strings.Contains(data["reg_f.kpatch"], "99") {
		t.Errorf("the leader kept the planted version: %v", data)
	}
	// the genuine version, vouched for by the API server, applies again
	// on a replica that never compiled it
	edit(t, c, "reg", map[string]string{"f.kpatch": goodFile3})
	syncOnce(t, leader)
	edit(t, c, "reg", map[string]string{"f.kpatch": brokenFile})
	fresh, _ := replica(c, false)
	for name, w := range map[string]*Watcher{"leader": leader, "fresh": fresh} {
		syncOnce(t, w)
		if got := replicas(t, w.Current()); got != "3" {
			t.Errorf("%s: replicas %s, want the last good 3", name, got)
		}
	}
}

// TestStoreVouchesOnceForWhatEtcdForgot: once etcd compacted a version's
// resourceVersion, a replica that did not compile it applies it only if
// the store held it when the replica started; a version planted while it
// runs is refused.
func TestStoreVouchesOnceForWhatEtcdForgot(t *testing.T) {
	c := newHistoryClient(t, registryConfigMap("reg", map[string]string{"f.kpatch": goodFile}))
	uid, goodRV := registryRV(t, c)
	leader, _ := replica(c, true)
	syncOnce(t, leader)
	edit(t, c, "reg", map[string]string{"f.kpatch": brokenFile})
	syncOnce(t, leader)
	_, brokenRV := registryRV(t, c)
	c.compacted = brokenRV

	restarted, _ := replica(c, false)
	syncOnce(t, restarted)
	if got := replicas(t, restarted.Current()); got != "2" {
		t.Errorf("a replica started after the compaction: replicas %s, want the stored 2", got)
	}
	asks := c.exactAsks
	syncOnce(t, restarted)
	if c.exactAsks != asks {
		t.Errorf("asked the API server again for a version it answered for")
	}
	plant(t, c, plantedFile, uid, goodRV)
	syncOnce(t, restarted)
	if got := replicas(t, restarted.Current()); got != "-" {
		t.Errorf("a version planted while the replica runs: replicas %s", got)
	}
}

// TestStoreIsCreatedAgain: the leader creates the store again when it is
// deleted, with the versions it held, the last good version of a broken
// file too; a follower keeps applying it meanwhile.
func TestStoreIsCreatedAgain(t *testing.T) {
	ctx := context.Background()
	c := newHistoryClient(t, registryConfigMap("reg", map[string]string{"f.kpatch": goodFile}))
	leader, _ := replica(c, true)
	follower, _ := replica(c, false)
	syncOnce(t, leader)
	edit(t, c, "reg", map[string]string{"f.kpatch": brokenFile})
	syncOnce(t, leader)
	syncOnce(t, follower)
	if err := c.Delete(ctx, storeConfigMap(t, c)); err != nil {
		t.Fatal(err)
	}
	syncOnce(t, follower)
	if got := replicas(t, follower.Current()); got != "2" {
		t.Errorf("follower without the store: replicas %s, want 2", got)
	}
	syncOnce(t, leader)
	cm := storeConfigMap(t, c)
	if cm.Data["reg_f.kpatch"] != goodFile || cm.Labels["app.kubernetes.io/managed-by"] != "kpatch-webhook" {
		t.Errorf("the store created again holds %v, labels %v", keys(cm.Data), cm.Labels)
	}
	if got := replicas(t, leader.Current()); got != "2" {
		t.Errorf("leader: replicas %s, want 2", got)
	}
}

// BenchmarkVouch is what checking the store costs a sync when every
// stored version is one this process compiled, at 1,000 and 10,000 files:
// go test -run '^$' -bench BenchmarkVouch -benchmem ./pkg/admission
func BenchmarkVouch(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			data := map[string]string{}
			for i := range n {
				data[fmt.Sprintf("f%05d.kpatch", i)] = fmt.Sprintf("[deployment.web%d]\nreplicas: 2\n", i)
			}
			cm := configMap("reg", data)
			var c registry.Compiler
			stored := c.Build([]corev1.ConfigMap{cm}, nil).LastGood
			s := &LastGoodStore{Namespace: "kpatch-system", Name: "kpatch-webhook-last-good", Log: logr.Discard()}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Vouch(ctx, stored, []corev1.ConfigMap{cm}, c.Compiled); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
