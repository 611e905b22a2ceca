package kpatch

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// liveHeap is the heap's live bytes after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestSizeEstimatesMemory compiles a 1 MiB file of 62,000 entries on a
// Deployment, whose kind has four API versions: Size is within a factor
// of two of the heap the patch keeps, which is under 60 times the
// source (it was 100 times when every version kept its own plans).
func TestSizeEstimatesMemory(t *testing.T) {
	var b strings.Builder
	b.WriteString("[deployment.web]\n")
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "labels.a%d: v\n", i)
	}
	src := []byte(b.String())
	before := liveHeap()
	p, err := ParseAndCompile("big.kpatch", src)
	if err != nil {
		t.Fatal(err)
	}
	kept := int(liveHeap() - before)
	size := p.Size()
	runtime.KeepAlive(p)
	t.Logf("%d bytes of source: Size %d, heap %d", len(src), size, kept)
	if size < kept/2 || size > kept*2 {
		t.Errorf("Size is %d; the patch keeps %d bytes", size, kept)
	}
	if kept > 60*len(src) {
		t.Errorf("a %d-byte file keeps %d bytes compiled", len(src), kept)
	}
	small := mustPatch(t, "small.kpatch", "[deployment.web]\nreplicas: 2\n")
	if small.Size() <= 0 || small.Size() >= size/1000 {
		t.Errorf("a one-entry patch has Size %d", small.Size())
	}
}
