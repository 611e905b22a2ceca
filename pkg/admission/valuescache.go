package admission

import (
	"strings"

	"k8s.io/utils/lru"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// BoundCacheSize bounds the files bound to per-object values that a
// registry keeps: one entry per file and set of annotations that set its
// parameters, shared by every Namespace with the same annotations. Past
// it, the least recently used entry goes.
const BoundCacheSize = 4096

// boundCache holds files bound to the values of annotations, so that a
// request binds a file only the first time its annotations are seen. It
// belongs to one Registry (a new build starts empty) and is safe for
// concurrent use.
type boundCache struct{ lru *lru.Cache }

func newBoundCache() *boundCache { return &boundCache{lru: lru.New(BoundCacheSize)} }

// boundKey names one binding: the file and the text of its annotations.
// A failed binding's message names the Namespace and the object, so its
// key holds them too (errKey).
type boundKey struct {
	fv  *fileValues
	key string
}

// boundEntry is a binding: the bound file, or why it failed.
type boundEntry struct {
	patch *kpatch.Patch
	err   error
}

// bind returns fv bound with the annotations ns and obj, from the cache
// or bound now and kept.
func (c *boundCache) bind(fv *fileValues, oc *objectContext, ns, obj []annotation) (*kpatch.Patch, error) {
	key := annotationsKey(ns, obj)
	if e, ok := c.lru.Get(boundKey{fv, key}); ok {
		return e.(boundEntry).patch, nil
	}
	ek := boundKey{fv, errKey(oc, len(obj) > 0) + key}
	if e, ok := c.lru.Get(ek); ok {
		return nil, e.(boundEntry).err
	}
	p, err := fv.resolve(oc, ns, obj)
	if err != nil {
		c.lru.Add(ek, boundEntry{err: err})
		return nil, err
	}
	c.lru.Add(boundKey{fv, key}, boundEntry{patch: p})
	return p, nil
}

// annotationsKey is the text of the annotations of a binding: each key
// and value, the Namespace's, then the object's.
func annotationsKey(ns, obj []annotation) string {
	var b strings.Builder
	for _, a := range ns {
		b.WriteString(a.key + "\x00" + a.value + "\x00")
	}
	b.WriteByte(1)
	for _, a := range obj {
		b.WriteString(a.key + "\x00" + a.value + "\x00")
	}
	return b.String()
}

// errKey starts the key of a failed binding: its message names the
// Namespace, and the object when its annotations took part.
func errKey(oc *objectContext, object bool) string {
	k := "\x02"
	if oc.namespace != nil {
		k += oc.namespace.Name
	}
	if object {
		k += "\x02" + oc.object
	}
	return k + "\x02"
}
