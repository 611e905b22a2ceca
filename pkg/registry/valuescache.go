package registry

import (
	"cmp"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// BoundCacheSize bounds the files bound to per-object values that a
// registry keeps: one entry per file and set of annotations that set its
// parameters, shared by every Namespace with the same annotations. When
// it is full, the least recently used quarter of the entries goes.
const BoundCacheSize = 4096

// boundCache holds files bound to the values of annotations, so that a
// request binds a file only the first time its annotations are seen. It
// belongs to one Registry (a new build starts empty) and is safe for
// concurrent use: a request that finds its binding takes no lock and
// allocates nothing (a hash of the annotations, a sync.Map read); only a
// new binding takes the writers' lock.
type boundCache struct {
	seed    maphash.Seed
	entries sync.Map      // boundKey -> *boundEntry
	clock   atomic.Uint64 // advanced by each entry added: the entries' age
	mu      sync.Mutex    // serializes writers
	size    int           // entries, under mu
}

func newBoundCache() *boundCache { return &boundCache{seed: maphash.MakeSeed()} }

// boundKey finds one binding: the file and a hash of its annotations
// (and, for a failed one, of the Namespace and object its message names).
// The entry found is compared in full: two bindings of one hash replace
// each other.
type boundKey struct {
	fv  *fileValues
	sum uint64
}

// boundEntry is a binding: the bound file, or why it failed. Immutable
// but for its age.
type boundEntry struct {
	ns, obj []Annotation // the annotations that set the file's inputs
	// failed says that err is the binding's, for the Namespace and object
	// named (object only when obj is not empty).
	failed            bool
	namespace, object string
	patch             *kpatch.Patch
	err               error
	used              atomic.Uint64 // the clock when last found
}

// bind returns fv bound with ns and obj, the annotations of the
// Namespace and of the object of oc that set its inputs (fv.relevant),
// from the cache or bound now and kept.
func (c *boundCache) bind(fv *fileValues, oc *ObjectContext, ns, obj []Annotation) (*kpatch.Patch, error) {
	key := boundKey{fv, c.sum(oc, ns, obj, false)}
	if e := c.get(key, oc, ns, obj, false); e != nil {
		return e.patch, nil
	}
	ekey := boundKey{fv, c.sum(oc, ns, obj, true)}
	if e := c.get(ekey, oc, ns, obj, true); e != nil {
		return nil, e.err
	}
	e := &boundEntry{ns: slices.Clone(ns), obj: slices.Clone(obj)}
	e.patch, e.err = fv.resolve(oc, e.ns, e.obj)
	if e.err != nil {
		e.failed, e.namespace, e.object, key = true, oc.namespaceName(), oc.object, ekey
	}
	c.add(key, e)
	return e.patch, e.err
}

// sum hashes the annotations ns and obj; for a failed binding, with the
// names of the Namespace and, when obj is not empty, of the object.
func (c *boundCache) sum(oc *ObjectContext, ns, obj []Annotation, failed bool) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	for i, list := range [2][]Annotation{ns, obj} {
		h.WriteByte(byte(i))
		for _, a := range list {
			h.WriteString(a.key)
			h.WriteByte(0)
			h.WriteString(a.value)
			h.WriteByte(0)
		}
	}
	if failed {
		h.WriteByte(2)
		h.WriteString(oc.namespaceName())
		if len(obj) > 0 {
			h.WriteByte(2)
			h.WriteString(oc.object)
		}
	}
	return h.Sum64()
}

// get returns the entry of key when it is the binding of ns and obj for
// oc, and marks it used; nil when there is none.
func (c *boundCache) get(key boundKey, oc *ObjectContext, ns, obj []Annotation, failed bool) *boundEntry {
	v, ok := c.entries.Load(key)
	if !ok {
		return nil
	}
	e := v.(*boundEntry)
	if e.failed != failed || !slices.Equal(e.ns, ns) || !slices.Equal(e.obj, obj) ||
		failed && (e.namespace != oc.namespaceName() || len(obj) > 0 && e.object != oc.object) {
		return nil
	}
	if now := c.clock.Load(); e.used.Load() != now {
		e.used.Store(now)
	}
	return e
}

// add keeps e under key; when the cache is full, it first drops the
// least recently used quarter of the entries.
func (c *boundCache) add(key boundKey, e *boundEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.used.Store(c.clock.Add(1))
	if _, replaced := c.entries.Swap(key, e); replaced {
		return
	}
	c.size++
	if c.size > BoundCacheSize {
		c.evict(c.size - BoundCacheSize*3/4)
	}
}

// evict drops the n least recently used entries; under mu.
func (c *boundCache) evict(n int) {
	type aged struct {
		key  boundKey
		used uint64
	}
	all := make([]aged, 0, c.size)
	c.entries.Range(func(k, v any) bool {
		all = append(all, aged{k.(boundKey), v.(*boundEntry).used.Load()})
		return true
	})
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.used, b.used) })
	for _, a := range all[:min(n, len(all))] {
		c.entries.Delete(a.key)
	}
	c.size -= min(n, len(all))
}

// len is the number of entries.
func (c *boundCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}
