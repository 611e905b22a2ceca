package registry

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// noteConfigMap is a registry ConfigMap whose file note.kpatch reads
// the parameter note, which an object may set (fromObject).
var noteConfigMap = configMap("values", map[string]string{
	ParametersKey: "parameters:\n- {name: note, type: string, default: none, fromObject: true}\n",
	"note.kpatch": "[deployment.web]\nlabels.note-set: \"yes\"\nannotations.note: ${values.note}\n",
})

// noteBinding is the registry of noteConfigMap and a func that binds its
// file for a Deployment web whose decoded object carries the annotation
// values.kpatch.dev/note with the value note.
func noteBinding(t testing.TB) (*Registry, func(note string) (*kpatch.Variables, error)) {
	t.Helper()
	var c Compiler
	reg := c.Build([]corev1.ConfigMap{noteConfigMap}, nil).Registry
	var fv *fileValues
	for p, v := range reg.values {
		if strings.HasSuffix(p.Name(), "note.kpatch") {
			fv = v
		}
	}
	if fv == nil {
		t.Fatal("note.kpatch does not depend on the object")
	}
	ns := namespace("shop", nil)
	return reg, func(note string) (*kpatch.Variables, error) {
		ref := kpatch.ObjectRef{Kind: "Deployment", Namespace: "shop", Name: "web"}
		obj := map[string]any{"metadata": map[string]any{"annotations": map[string]any{"values.kpatch.dev/note": note}}}
		return boundVars(fv.forObject(reg.bound, NewObjectContext("Deployment", &ref, ns, nil, obj)))
	}
}

// requestDocument is a document of size bytes, as the object decoder
// holds a request's body: one string its values are slices of, and a
// weak pointer to it; note is the value of an annotation in it, of
// noteSize bytes.
func requestDocument(size, noteSize int, fill byte) (note string, doc weak.Pointer[byte]) {
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = fill
	}
	s := unsafe.String(&buf[0], len(buf))
	return s[64 : 64+noteSize], weak.Make(&buf[0])
}

// TestBoundCacheRetainsNoRequest: a binding kept for an object's
// annotation keeps a copy of its text, not the request's document it was
// sliced from; and the entry's estimated size covers what it keeps.
func TestBoundCacheRetainsNoRequest(t *testing.T) {
	reg, bind := noteBinding(t)
	note, doc := requestDocument(4<<20, 1<<20, 'a')
	p, err := bind(note)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Values["note"]; got != note {
		t.Fatalf("bound to %.20q", got)
	}
	if reg.bound.len() != 1 {
		t.Fatalf("%d entries", reg.bound.len())
	}
	note = ""
	runtime.GC()
	runtime.GC()
	if doc.Value() != nil {
		t.Error("the values cache keeps the request's document alive")
	}
	if p, _ := bind(strings.Repeat("a", 1<<20)); p.Values["note"] != strings.Repeat("a", 1<<20) {
		t.Error("the binding kept is not the value's")
	}
	runtime.KeepAlive(p)
}

// TestBoundCacheEvictsByBytes binds distinct annotations of 1 MiB: the
// cache keeps at most BoundCacheBytes of them by its estimate, the most
// recent ones, and the heap it keeps stays within twice that (without a
// bound in bytes it would keep every value: 96 MiB).
func TestBoundCacheEvictsByBytes(t *testing.T) {
	reg, bind := noteBinding(t)
	const n = 96
	before := heapInUse()
	var last *kpatch.Variables
	for i := range n {
		note, _ := requestDocument(1<<20+128, 1<<20, byte('a'+i%26))
		note = fmt.Sprintf("%03d", i) + note[3:]
		p, err := bind(note)
		if err != nil {
			t.Fatal(err)
		}
		last = p
	}
	retained := reg.bound.retained()
	if retained > BoundCacheBytes || reg.bound.len() >= n || reg.bound.len() == 0 {
		t.Fatalf("%d entries, %d bytes estimated", reg.bound.len(), retained)
	}
	grown := heapInUse() - before
	t.Logf("%d bindings of 1 MiB annotations: %d kept, %.1f MiB estimated, heap grew by %.1f MiB", n, reg.bound.len(), float64(retained)/(1<<20), float64(grown)/(1<<20))
	if grown > 2*BoundCacheBytes {
		t.Errorf("the heap grew by %d bytes, over twice BoundCacheBytes", grown)
	}
	// the last one is kept: bound again, it is the same
	note := fmt.Sprintf("%03d", n-1) + strings.Repeat(string(rune('a'+(n-1)%26)), 1<<20-3)
	if p, _ := bind(note); p != last {
		t.Error("the most recent binding was dropped")
	}
	runtime.KeepAlive(reg)
}

// TestBoundCacheSkipsHugeEntries: a binding larger than a quarter of
// the byte bound is not kept.
func TestBoundCacheSkipsHugeEntries(t *testing.T) {
	reg, bind := noteBinding(t)
	reg.bound.maxBytes = 1 << 20
	if _, err := bind(strings.Repeat("x", 300<<10)); err != nil {
		t.Fatal(err)
	}
	if n := reg.bound.len(); n != 0 {
		t.Errorf("%d entries kept", n)
	}
	if _, err := bind("small"); err != nil || reg.bound.len() != 1 {
		t.Errorf("a small binding: %v, %d entries", err, reg.bound.len())
	}
}

// heapInUse is the heap's bytes in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
