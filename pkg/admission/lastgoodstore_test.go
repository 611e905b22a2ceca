package admission

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"kpatch.dev/kpatch/pkg/registry"
)

func newStore(objs ...client.Object) (*LastGoodStore, client.Client) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(objs...).Build()
	return &LastGoodStore{Reader: c, Writer: c, Namespace: "kpatch-system", Name: "kpatch-webhook-last-good"}, c
}

func storeConfigMap(t *testing.T, c client.Client) *corev1.ConfigMap {
	t.Helper()
	var cm corev1.ConfigMap
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "kpatch-system", Name: "kpatch-webhook-last-good"}, &cm); err != nil {
		t.Fatal(err)
	}
	return &cm
}

func TestStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, c := newStore()
	if lg, err := s.Load(ctx); err != nil || lg.Len() != 0 {
		t.Fatalf("a missing store: %v %v", lg, err)
	}
	values := "values:\n  count: 2\n"
	want := registry.NewLastGood(map[registry.FileRef]registry.StoredFile{
		{ConfigMap: "a", Key: "f.kpatch"}: registry.NewStoredFile(goodFile, values, "uid-10", "10"),
		{ConfigMap: "a", Key: "g.yaml"}:   registry.NewStoredFile("- target: pod.*\n  patch: {metadata: {labels: {a: b}}}\n", values, "uid-10", "10"),
		{ConfigMap: "b", Key: "h.kpatch"}: registry.NewStoredFile(goodFile3, "", "uid-11", "11"),
	})
	if notStored, err := s.Save(ctx, want); err != nil || len(notStored) != 0 {
		t.Fatalf("save: %v %v", notStored, err)
	}
	cm := storeConfigMap(t, c)
	if cm.Data["a_f.kpatch"] != goodFile || cm.Data["b_h.kpatch"] != goodFile3 || cm.Labels["app.kubernetes.io/managed-by"] != "kpatch-webhook" {
		t.Errorf("the store holds %v, labels %v", cm.Data, cm.Labels)
	}
	if n := strings.Count(strings.Join(keys(cm.Data), ","), "values."); n != 2 {
		t.Errorf("%d values keys, want one per distinct values.yaml (2): %v", n, keys(cm.Data))
	}
	got, err := s.Load(ctx)
	if err != nil || !got.Equal(want) {
		t.Fatalf("load: %v %v", got.Refs(), err)
	}
	if f, _ := got.Get(registry.FileRef{ConfigMap: "a", Key: "f.kpatch"}); f.Source != goodFile || f.Values != values || f.ResourceVersion != "10" {
		t.Errorf("a/f.kpatch: %+v", f)
	}
	if s.Size() != dataSize(cm.Data) {
		t.Errorf("size %d", s.Size())
	}
	// the same content again writes nothing
	rv := cm.ResourceVersion
	if _, err := s.Save(ctx, want); err != nil || storeConfigMap(t, c).ResourceVersion != rv {
		t.Errorf("an unchanged store was written: %v", err)
	}
	// a file that left the registry leaves the store
	if _, err := s.Save(ctx, registry.NewLastGood(map[registry.FileRef]registry.StoredFile{{ConfigMap: "b", Key: "h.kpatch"}: registry.NewStoredFile(goodFile3, "", "uid-11", "11")})); err != nil {
		t.Fatal(err)
	}
	if data := storeConfigMap(t, c).Data; len(data) != 3 || data["a_f.kpatch"] != "" {
		t.Errorf("after a removal: %v", keys(data))
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestStoreIgnoresTamperedEntries: an entry whose source no longer matches
// its digest is left out, the others are read.
func TestStoreIgnoresTamperedEntries(t *testing.T) {
	ctx := context.Background()
	s, c := newStore()
	want := registry.NewLastGood(map[registry.FileRef]registry.StoredFile{{ConfigMap: "a", Key: "f.kpatch"}: registry.NewStoredFile(goodFile, "", "uid-1", "1"), {ConfigMap: "a", Key: "g.kpatch"}: registry.NewStoredFile(goodFile3, "", "uid-1", "1")})
	if _, err := s.Save(ctx, want); err != nil {
		t.Fatal(err)
	}
	cm := storeConfigMap(t, c)
	cm.Data["a_f.kpatch"] = "[deployment.*]\nreplicas: 100\n"
	if err := c.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx)
	if err != nil || got.Len() != 1 {
		t.Fatalf("load: %v %v", got.Refs(), err)
	}
	if _, ok := got.Get(registry.FileRef{ConfigMap: "a", Key: "g.kpatch"}); !ok {
		t.Error("the intact entry was dropped")
	}
	cm.Data[storeIndexKey] = "{"
	if err := c.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Load(ctx); err != nil || got.Len() != 0 {
		t.Errorf("a broken index: %v %v", got.Refs(), err)
	}
}

// TestStoreFull: what does not fit in MaxBytes is not stored and is
// returned; versions the store holds already go first.
func TestStoreFull(t *testing.T) {
	ctx := context.Background()
	s, c := newStore()
	small := registry.NewStoredFile(goodFile, "", "uid-1", "1")
	if _, err := s.Save(ctx, registry.NewLastGood(map[registry.FileRef]registry.StoredFile{{ConfigMap: "z", Key: "late.kpatch"}: small})); err != nil {
		t.Fatal(err)
	}
	s.MaxBytes = dataSize(storeConfigMap(t, c).Data) + 100
	big := registry.NewStoredFile("[deployment.*]\nlabels.a: \""+strings.Repeat("x", 200)+"\"\n", "", "uid-2", "2")
	notStored, err := s.Save(ctx, registry.NewLastGood(map[registry.FileRef]registry.StoredFile{{ConfigMap: "a", Key: "early.kpatch"}: big, {ConfigMap: "z", Key: "late.kpatch"}: small}))
	if err != nil {
		t.Fatal(err)
	}
	if len(notStored) != 1 || notStored[0].Ref != (registry.FileRef{ConfigMap: "a", Key: "early.kpatch"}) || !errors.Is(notStored[0].Err, ErrStoreFull) {
		t.Errorf("not stored %+v", notStored)
	}
	data := storeConfigMap(t, c).Data
	if data["z_late.kpatch"] != goodFile || data["a_early.kpatch"] != "" || dataSize(data) > s.MaxBytes {
		t.Errorf("the store holds %v (%d bytes)", keys(data), dataSize(data))
	}
}

func TestStoreKeyTooLong(t *testing.T) {
	s, _ := newStore()
	ref := registry.FileRef{ConfigMap: strings.Repeat("c", 200), Key: strings.Repeat("k", 60) + ".kpatch"}
	notStored, err := s.Save(context.Background(), registry.NewLastGood(map[registry.FileRef]registry.StoredFile{ref: registry.NewStoredFile(goodFile, "", "uid-1", "1")}))
	if err != nil || len(notStored) != 1 || !errors.Is(notStored[0].Err, ErrStoreKeyName) {
		t.Errorf("%+v %v", notStored, err)
	}
}

// TestStoreFollowsItsLayout: the layout is part of the contract between
// webhook versions, and what an admin reads.
func TestStoreFollowsItsLayout(t *testing.T) {
	data, _ := encodeStore(registry.NewLastGood(map[registry.FileRef]registry.StoredFile{{ConfigMap: "a", Key: "f.kpatch"}: registry.NewStoredFile(goodFile, "", "uid-5", "5")}), nil, MaxStoreBytes)
	want := `{"format":2,"files":{"a_f.kpatch":{"sha256":"` + registry.Digest(goodFile) + `","values":"` + registry.Digest("") + `","uid":"uid-5","resourceVersion":"5"}}}`
	if data[storeIndexKey] != want || data["a_f.kpatch"] != goodFile || data["values."+registry.Digest("")] != "" || len(data) != 3 {
		t.Errorf("data %v", data)
	}
}

// staleReader shows the store as it was when the test froze it, as a
// cache that has not seen a write yet.
type staleReader struct {
	client.Reader
	cm *corev1.ConfigMap
}

func (r staleReader) Get(_ context.Context, _ client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	r.cm.DeepCopyInto(obj.(*corev1.ConfigMap))
	return nil
}

// TestStoreReadsItsOwnWrite: while the cache shows the version the
// leader has just replaced, Load reads the API server, so that the
// leader's next sync does not fall back to the version it replaced.
func TestStoreReadsItsOwnWrite(t *testing.T) {
	ctx := context.Background()
	s, c := newStore()
	if _, err := s.Save(ctx, registry.NewLastGood(map[registry.FileRef]registry.StoredFile{{ConfigMap: "a", Key: "f.kpatch"}: registry.NewStoredFile(goodFile, "", "uid-1", "1")})); err != nil {
		t.Fatal(err)
	}
	frozen := storeConfigMap(t, c)
	s.Reader, s.Live = staleReader{cm: frozen}, c
	if _, err := s.Save(ctx, registry.NewLastGood(map[registry.FileRef]registry.StoredFile{{ConfigMap: "a", Key: "f.kpatch"}: registry.NewStoredFile(goodFile3, "", "uid-2", "2")})); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx)
	if f, _ := got.Get(registry.FileRef{ConfigMap: "a", Key: "f.kpatch"}); err != nil || f.Source != goodFile3 {
		t.Errorf("load after a write the cache does not show: %+v %v", f, err)
	}
	// once the cache shows the write, it is read again
	s.Reader = staleReader{cm: storeConfigMap(t, c)}
	s.Live = nil
	if got, _ := s.Load(ctx); got.Len() != 1 {
		t.Errorf("load %v", got.Refs())
	}
	if s.wrote {
		t.Error("still reading the API server after the cache caught up")
	}
}
