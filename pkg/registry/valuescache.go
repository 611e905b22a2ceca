package registry

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
)

// BoundCacheSize bounds the files bound to per-object values that a
// registry keeps: one entry per file and set of annotations that set its
// parameters, shared by every Namespace with the same annotations. When
// it is full, the least recently used quarter of the entries goes.
const BoundCacheSize = 4096

// BoundCacheBytes bounds the same entries by the bytes they keep
// (boundEntrySize): past it, the least recently used entries go until a
// quarter of it is free. A binding larger than a quarter of it is not
// kept: it is bound again on each request that needs it.
const BoundCacheBytes = 32 << 20

// boundEntryOverhead is what an entry keeps besides its annotations'
// text: the entry, its keys in the map, the bound patch's header (and
// the registry's file bound to it, a second header) and
// variables (measured: TestBoundCacheRetainsNoRequest).
const boundEntryOverhead = 1024

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
	bytes   int64         // boundEntrySize of the entries, under mu
	// maxEntries and maxBytes are the bounds: BoundCacheSize and
	// BoundCacheBytes.
	maxEntries int
	maxBytes   int64
}

func newBoundCache() *boundCache {
	return &boundCache{seed: maphash.MakeSeed(), maxEntries: BoundCacheSize, maxBytes: BoundCacheBytes}
}

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
	file              apply.File // the registry's file bound to patch's values
	err               error
	size              int64         // boundEntrySize
	used              atomic.Uint64 // the clock when last found
}

// bind returns fv bound with ns and obj, the annotations of the
// Namespace and of the object of oc that set its inputs (fv.relevant),
// from the cache or bound now and kept.
func (c *boundCache) bind(fv *fileValues, oc *ObjectContext, ns, obj []Annotation) (*boundEntry, error) {
	key := boundKey{fv, c.sum(oc, ns, obj, false)}
	if e := c.get(key, oc, ns, obj, false); e != nil {
		return e, nil
	}
	ekey := boundKey{fv, c.sum(oc, ns, obj, true)}
	if e := c.get(ekey, oc, ns, obj, true); e != nil {
		return nil, e.err
	}
	// copies: an object's annotations are slices of its request's
	// document, which an entry must not keep alive
	e := &boundEntry{ns: cloneAnnotations(ns), obj: cloneAnnotations(obj)}
	e.patch, e.err = fv.resolve(oc, e.ns, e.obj)
	if e.err != nil {
		e.failed, e.namespace, e.object, key = true, strings.Clone(oc.namespaceName()), strings.Clone(oc.object), ekey
	} else {
		e.file = fv.file.WithValues(e.patch.Variables())
	}
	e.size = boundEntrySize(e)
	c.add(key, e)
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// cloneAnnotations copies list and the text of its annotations.
func cloneAnnotations(list []Annotation) []Annotation {
	if len(list) == 0 {
		return nil
	}
	out := make([]Annotation, len(list))
	for i, a := range list {
		key := strings.Clone(a.key)
		// param is the start of the name after the prefix: it shares
		// key's copy
		param := strings.Clone(a.param)
		if name, ok := strings.CutPrefix(key, parameters.AnnotationPrefix); ok && strings.HasPrefix(name, a.param) {
			param = name[:len(a.param)]
		}
		out[i] = Annotation{key: key, param: param, value: strings.Clone(a.value)}
	}
	return out
}

// boundEntrySize estimates the bytes e keeps: its annotations' text
// (the entry's copy, which the bound patch's values share), the names
// and message of a failure, and boundEntryOverhead.
func boundEntrySize(e *boundEntry) int64 {
	n := int64(boundEntryOverhead)
	for _, list := range [2][]Annotation{e.ns, e.obj} {
		for _, a := range list {
			n += int64(len(a.key) + len(a.value))
		}
	}
	if e.failed {
		n += int64(len(e.namespace) + len(e.object) + len(e.err.Error()))
	}
	return n
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

// add keeps e under key; when the cache is full (in entries or in
// bytes), it first drops the least recently used entries, until a
// quarter of it is free. An entry larger than a quarter of maxBytes is
// not kept.
func (c *boundCache) add(key boundKey, e *boundEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.maxBytes > 0 && e.size > c.maxBytes/4 {
		return
	}
	e.used.Store(c.clock.Add(1))
	if old, replaced := c.entries.Swap(key, e); replaced {
		c.bytes += e.size - old.(*boundEntry).size
	} else {
		c.size++
		c.bytes += e.size
	}
	if c.size > c.maxEntries || c.maxBytes > 0 && c.bytes > c.maxBytes {
		c.evict(c.maxEntries*3/4, c.maxBytes*3/4)
	}
}

// evict drops the least recently used entries until at most entries
// and bytes remain; under mu.
func (c *boundCache) evict(entries int, bytes int64) {
	type aged struct {
		key  boundKey
		used uint64
		size int64
	}
	all := make([]aged, 0, c.size)
	c.entries.Range(func(k, v any) bool {
		e := v.(*boundEntry)
		all = append(all, aged{k.(boundKey), e.used.Load(), e.size})
		return true
	})
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.used, b.used) })
	for _, a := range all {
		if c.size <= entries && (c.maxBytes <= 0 || c.bytes <= bytes) {
			break
		}
		c.entries.Delete(a.key)
		c.size--
		c.bytes -= a.size
	}
}

// len is the number of entries.
func (c *boundCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// retained is the boundEntrySize of the entries.
func (c *boundCache) retained() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
