package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/pkg/registry"
)

// MaxStoreBytes is the most the store's data may hold, keys and values
// counted: what the API server accepts in one ConfigMap (1 MiB).
const MaxStoreBytes = 1 << 20

// The store's layout: one key per file, named <configmap>_<key> (a
// ConfigMap name has no underscore) and holding the file's source as it
// was; one key per distinct values.yaml, named values.<sha256>; and
// index.json, which gives each file's source digest, values digest and
// the uid and resourceVersion of the ConfigMap it came from. Format 1
// recorded no uid: its versions are read, and never apply.
const (
	storeIndexKey     = "index.json"
	storeValuesPrefix = "values."
	storeSeparator    = "_"
	storeFormat       = 2
)

// FieldManager is the field manager of the webhook's writes to the store.
const FieldManager = "kpatch-webhook"

// Errors of files whose last good version the store cannot hold, checked
// with errors.Is.
var (
	ErrStoreFull    = errors.New("the last good store would exceed the 1 MiB a ConfigMap holds")
	ErrStoreKeyName = errors.New("configmap and key are too long together for a key of the last good store (253 characters)")
)

// NotStored is a file whose current version applies but cannot be kept
// as its last good version: if it breaks, no version of it applies.
type NotStored struct {
	Ref registry.FileRef
	Err error
}

type storeIndex struct {
	Format int                        `json:"format"`
	Files  map[string]storeIndexEntry `json:"files"`
}

type storeIndexEntry struct {
	SHA256          string `json:"sha256"`
	Values          string `json:"values"`
	UID             string `json:"uid,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// LastGoodStore keeps the last good version of each registry file in one
// ConfigMap of the registry namespace (which must not carry the registry's
// label). Every replica reads it; only the leader writes it, and creates
// it again when it is deleted. What it holds is not taken on trust: see
// Vouch. It is safe for concurrent use.
type LastGoodStore struct {
	// Reader reads the store's ConfigMap, typically from a cache that
	// watches it; Live reads the API server itself (the Reader when
	// nil), to read this process's own write while the cache does not
	// show it yet, and the registry's history (Vouch); Writer writes it.
	Reader    client.Reader
	Live      client.Reader
	Writer    client.Writer
	Namespace string
	Name      string
	// MaxBytes bounds the data; MaxStoreBytes when zero.
	MaxBytes int
	Log      logr.Logger

	cache    cache.Cache // the Reader, when it is a cache that SetupWithManager watches
	mu       sync.Mutex
	loaded   *registry.LastGood
	loadedRV string
	size     int
	// wrote says that this process wrote the store over the version
	// writtenOver ("" when it created it): while the Reader still shows
	// that version, reads go to the API server.
	wrote       bool
	writtenOver string
	// atStart holds the versions the store held when this process first
	// read it; vouched, what the API server said of each version asked.
	atStart map[string]bool
	vouched map[string]bool
	gone    bool // the ConfigMap was missing when last read
}

// missing reports whether the store's ConfigMap was missing when Load
// last read it.
func (s *LastGoodStore) missing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gone
}

// Load reads the stored versions. Entries whose content does not match
// the index (an edit by hand) are ignored, with a log line. A store that
// is missing holds what it held when last read (none, if never): the
// leader creates it again with those versions.
func (s *LastGoodStore) Load(ctx context.Context) (*registry.LastGood, error) {
	cm, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone = cm == nil
	if s.gone {
		return s.loaded, nil
	}
	if cm.ResourceVersion != "" && cm.ResourceVersion == s.loadedRV {
		return s.loaded, nil
	}
	lg, problems := decodeStore(cm)
	for _, p := range problems {
		s.Log.Error(p, "ignored an entry of the last good store", "configMap", s.Name)
	}
	s.loaded, s.loadedRV, s.size = lg, cm.ResourceVersion, dataSize(cm.Data)
	return lg, nil
}

// Size is the size of the store's data as last loaded, in bytes.
func (s *LastGoodStore) Size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// get reads the store's ConfigMap, nil when there is none. While the
// Reader still shows the version this process last wrote over, it reads
// the API server: the leader's next sync must not fall back to a version
// it has just replaced.
func (s *LastGoodStore) get(ctx context.Context) (*corev1.ConfigMap, error) {
	cm, err := s.read(ctx, s.Reader)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	stale := s.wrote && (cm == nil && s.writtenOver == "" || cm != nil && cm.ResourceVersion == s.writtenOver)
	s.wrote = stale
	s.mu.Unlock()
	if !stale || s.Live == nil {
		return cm, nil
	}
	live, err := s.read(ctx, s.Live)
	if err == nil && (live == nil) == (cm == nil) && (live == nil || live.ResourceVersion == cm.ResourceVersion) {
		s.mu.Lock()
		s.wrote = false // the write is gone: the cache is right
		s.mu.Unlock()
	}
	return live, err
}

func (s *LastGoodStore) read(ctx context.Context, r client.Reader) (*corev1.ConfigMap, error) {
	var cm corev1.ConfigMap
	err := r.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: s.Name}, &cm)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the last good store %s/%s: %w", s.Namespace, s.Name, err)
	}
	return &cm, nil
}

// Save makes the store hold want, as much of it as fits: first the
// versions it holds already, then the others in registry order. It writes
// only when the data changes, and returns the files it could not keep.
func (s *LastGoodStore) Save(ctx context.Context, want *registry.LastGood) ([]NotStored, error) {
	cm, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	have := s.decoded(cm)
	max := s.MaxBytes
	if max == 0 {
		max = MaxStoreBytes
	}
	data, notStored := encodeStore(want, have, max)
	over := ""
	switch {
	case cm == nil && len(data) == 0:
		return notStored, nil
	case cm == nil:
		// a server-side apply that creates the ConfigMap is authorized as
		// create of this name: a Role can grant it by name, which it
		// cannot for a plain create
		apply := corev1ac.ConfigMap(s.Name, s.Namespace).WithLabels(map[string]string{
			"app.kubernetes.io/managed-by": "kpatch-webhook", "app.kubernetes.io/component": "last-good",
		}).WithData(data)
		err = s.Writer.Apply(ctx, apply, client.FieldOwner(FieldManager), client.ForceOwnership)
	case !maps.Equal(cm.Data, data):
		// replaced whole, keys written by others too, unless it changed
		// since it was read
		over, cm.Data = cm.ResourceVersion, data
		err = s.Writer.Update(ctx, cm, client.FieldOwner(FieldManager))
	default:
		return notStored, nil
	}
	if err != nil {
		return notStored, fmt.Errorf("writing the last good store %s/%s: %w", s.Namespace, s.Name, err)
	}
	s.mu.Lock()
	s.wrote, s.writtenOver = true, over
	s.mu.Unlock()
	return notStored, nil
}

// decoded is the snapshot cm holds: the one Load read when it is the
// same version.
func (s *LastGoodStore) decoded(cm *corev1.ConfigMap) *registry.LastGood {
	if cm == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cm.ResourceVersion != "" && cm.ResourceVersion == s.loadedRV {
		return s.loaded
	}
	lg, _ := decodeStore(cm)
	return lg
}

// storeKey is the data key of a file's source.
func storeKey(ref registry.FileRef) string { return ref.ConfigMap + storeSeparator + ref.Key }

// dataSize is what a ConfigMap's data weighs: keys and values.
func dataSize(data map[string]string) int {
	n := 0
	for k, v := range data {
		n += len(k) + len(v)
	}
	return n
}

// decodeStore reads a store ConfigMap; entries that do not match the
// index are left out and reported.
func decodeStore(cm *corev1.ConfigMap) (*registry.LastGood, []error) {
	raw, ok := cm.Data[storeIndexKey]
	if !ok {
		return nil, nil
	}
	var idx storeIndex
	if err := json.Unmarshal([]byte(raw), &idx); err != nil {
		return nil, []error{fmt.Errorf("%s: %w", storeIndexKey, err)}
	}
	if idx.Format != storeFormat && idx.Format != 1 {
		return nil, []error{fmt.Errorf("%s: format %d, not %d", storeIndexKey, idx.Format, storeFormat)}
	}
	files := make(map[registry.FileRef]registry.StoredFile, len(idx.Files))
	var problems []error
	for key, e := range idx.Files {
		cmName, fileKey, ok := strings.Cut(key, storeSeparator)
		src, hasSrc := cm.Data[key]
		values, hasValues := cm.Data[storeValuesPrefix+e.Values]
		switch {
		case !ok || cmName == "" || fileKey == "":
			problems = append(problems, fmt.Errorf("%s: not <configmap>_<key>", key))
		case !hasSrc || registry.Digest(src) != e.SHA256:
			problems = append(problems, fmt.Errorf("%s: the source is missing or does not match its sha256", key))
		case !hasValues || registry.Digest(values) != e.Values:
			problems = append(problems, fmt.Errorf("%s: its values are missing or do not match their sha256", key))
		default:
			files[registry.FileRef{ConfigMap: cmName, Key: fileKey}] = registry.StoredFile{
				Source: src, Values: values, SourceDigest: e.SHA256, ValuesDigest: e.Values, UID: e.UID, ResourceVersion: e.ResourceVersion,
			}
		}
	}
	return registry.NewLastGood(files), problems
}

// encodeStore lays want out as the store's data within max bytes: the
// versions have holds first, then the others in registry order; what does
// not fit is left out and returned.
func encodeStore(want, have *registry.LastGood, max int) (map[string]string, []NotStored) {
	data := map[string]string{}
	idx := storeIndex{Format: storeFormat, Files: map[string]storeIndexEntry{}}
	size := len(storeIndexKey) + len(`{"format":2,"files":{}}`)
	var notStored []NotStored
	add := func(ref registry.FileRef, f registry.StoredFile) {
		key := storeKey(ref)
		if len(validation.IsConfigMapKey(key)) > 0 {
			notStored = append(notStored, NotStored{Ref: ref, Err: fmt.Errorf("%s: %w", ref, ErrStoreKeyName)})
			return
		}
		e := storeIndexEntry{SHA256: f.SourceDigest, Values: f.ValuesDigest, UID: f.UID, ResourceVersion: f.ResourceVersion}
		cost := len(key) + len(f.Source) + indexEntrySize(key, e)
		valuesKey := storeValuesPrefix + f.ValuesDigest
		if _, ok := data[valuesKey]; !ok {
			cost += len(valuesKey) + len(f.Values)
		}
		if size+cost > max {
			notStored = append(notStored, NotStored{Ref: ref, Err: fmt.Errorf("%s: %w", ref, ErrStoreFull)})
			return
		}
		size += cost
		data[key], data[valuesKey], idx.Files[key] = f.Source, f.Values, e
	}
	refs := want.Refs()
	var later []registry.FileRef
	for _, ref := range refs {
		f, _ := want.Get(ref)
		if old, ok := have.Get(ref); ok && old.SameVersion(f) {
			add(ref, f)
		} else {
			later = append(later, ref)
		}
	}
	for _, ref := range later {
		f, _ := want.Get(ref)
		add(ref, f)
	}
	if len(idx.Files) == 0 {
		return map[string]string{}, notStored
	}
	b, _ := json.Marshal(idx) // strings and ints only: never fails
	data[storeIndexKey] = string(b)
	return data, notStored
}

// indexEntrySize is what an entry adds to index.json: "key":{...} and a
// comma.
func indexEntrySize(key string, e storeIndexEntry) int {
	k, _ := json.Marshal(key)
	v, _ := json.Marshal(e)
	return len(k) + 1 + len(v) + 1
}
