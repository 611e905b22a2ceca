package objectjson

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"gomodules.xyz/jsonpatch/v2"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// createPatch returns the RFC 6902 patch from orig to patched: the
// operations jsonpatch.CreatePatch computes between the two documents
// (TestCreatePatchMatchesJSONPatch holds it to that). kpatch.Apply shares
// every unchanged map and list of its result with its input, so this walk,
// which follows jsonpatch's own over objects and arrays, skips identical
// subtrees without looking inside them and hands the values that differ to
// jsonpatch.CreatePatch, instead of marshalling the whole object and
// decoding it twice. JSONPatch runs the same walk and writes the
// operations as JSON as it finds them.
func createPatch(orig, patched map[string]any) ([]jsonpatch.Operation, error) {
	var ops operationList
	d := differ{out: &ops}
	err := d.maps(orig, patched, make([]byte, 0, 128))
	return ops, err
}

// patchSink receives the operations of the walk: op, the JSON pointer
// path (only valid during the call) and the value.
type patchSink interface {
	emit(op string, path []byte, value any) error
}

// operationList collects the operations as jsonpatch's.
type operationList []jsonpatch.Operation

func (l *operationList) emit(op string, path []byte, value any) error {
	*l = append(*l, jsonpatch.NewOperation(op, string(path), value))
	return nil
}

// The walk builds the JSON pointer of where it is in one buffer, path,
// which each level extends for its children.

// child is path extended by a map key.
func child(path []byte, key string) []byte {
	return appendPointerToken(append(path, '/'), key)
}

// item is path extended by a list index.
func item(path []byte, i int) []byte {
	return strconv.AppendInt(append(path, '/'), int64(i), 10)
}

// differ is the walk from the object as it came to the object patched. It
// writes a map's operations in the order of their keys, so that one
// change gives the same JSONPatch, byte for byte, on every call and every
// replica (Go's map order is random); keys is the scratch in which each
// level sorts the keys it writes operations for, above its parent's.
type differ struct {
	out  patchSink
	keys []string
}

// maps follows jsonpatch's own walk over objects: the keys of b that a
// lacks added and the keys that differ compared, in order, then the keys
// of a that b lacks removed, in order. Only the keys with an operation
// are sorted: a map of n keys with k changed costs n + k log k.
func (d *differ) maps(a, b map[string]any, path []byte) error {
	if jsonvalue.SameMap(a, b) {
		return nil
	}
	start := len(d.keys)
	defer func() { d.keys = d.keys[:start] }()
	common := 0
	for key, bv := range b {
		av, ok := a[key]
		if ok {
			common++
			if identical(av, bv) {
				continue
			}
		}
		d.keys = append(d.keys, key)
	}
	end := len(d.keys)
	slices.Sort(d.keys[start:end])
	for i := start; i < end; i++ {
		key := d.keys[i] // d.keys may grow below, never shrink under end
		bv := b[key]
		av, ok := a[key]
		if !ok {
			if err := d.out.emit("add", child(path, key), bv); err != nil {
				return err
			}
			continue
		}
		if err := d.values(av, bv, child(path, key)); err != nil {
			return err
		}
	}
	if common == len(a) {
		return nil
	}
	d.keys = d.keys[:start]
	for key := range a {
		if _, ok := b[key]; !ok {
			d.keys = append(d.keys, key)
		}
	}
	slices.Sort(d.keys[start:])
	for _, key := range d.keys[start:] {
		if err := d.out.emit("remove", child(path, key), nil); err != nil {
			return err
		}
	}
	return nil
}

func (d *differ) values(a, b any, path []byte) error {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			return d.maps(av, bv, path)
		}
	case []any:
		if bv, ok := b.([]any); ok {
			return d.lists(av, bv, path)
		}
	case string, bool, int64, float64, nil:
		if scalar(b) {
			// jsonpatch replaces a scalar that changed, type or value
			if !jsonvalue.Equal(a, b) {
				return d.out.emit("replace", path, b)
			}
			return nil
		}
	}
	// A container meets something else: jsonpatch diffs them.
	ja, err := json.Marshal(a)
	if err != nil {
		return err
	}
	jb, err := json.Marshal(b)
	if err != nil {
		return err
	}
	sub, err := jsonpatch.CreatePatch(ja, jb)
	if err != nil {
		return err
	}
	for _, op := range sub {
		if err := d.out.emit(op.Operation, append(path, op.Path...), op.Value); err != nil {
			return err
		}
	}
	return nil
}

// lists follows jsonpatch's own walk over arrays: items past the end of
// the shorter list are removed (last first) or added, and the items the
// two lists share by index are compared.
func (d *differ) lists(a, b []any, path []byte) error {
	if jsonvalue.SameList(a, b) {
		return nil
	}
	n := min(len(a), len(b))
	for i := len(a) - 1; i >= n; i-- {
		if err := d.out.emit("remove", item(path, i), nil); err != nil {
			return err
		}
	}
	for i := n; i < len(b); i++ {
		if err := d.out.emit("add", item(path, i), b[i]); err != nil {
			return err
		}
	}
	for i := range n {
		if identical(a[i], b[i]) {
			continue
		}
		if err := d.values(a[i], b[i], item(path, i)); err != nil {
			return err
		}
	}
	return nil
}

// identical reports whether two values are the same container or equal
// scalars: the subtrees the engine left alone, which the walk skips
// without building their paths.
func identical(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && jsonvalue.SameMap(x, y)
	case []any:
		y, ok := b.([]any)
		return ok && jsonvalue.SameList(x, y)
	}
	return scalar(a) && scalar(b) && jsonvalue.Equal(a, b)
}

func scalar(v any) bool {
	switch v.(type) {
	case string, bool, int64, float64, nil:
		return true
	}
	return false
}

// appendPointerToken appends a key escaped for a JSON pointer (RFC 6901).
func appendPointerToken(b []byte, key string) []byte {
	if !strings.ContainsAny(key, "~/") {
		return append(b, key...)
	}
	for i := range len(key) {
		switch key[i] {
		case '~':
			b = append(b, '~', '0')
		case '/':
			b = append(b, '~', '1')
		default:
			b = append(b, key[i])
		}
	}
	return b
}

// JSONPatch is the encoded JSONPatch from orig to patched, nil when they
// are equal: createPatch's operations, written as encodePatch writes them.
func JSONPatch(orig, patched map[string]any) ([]byte, error) {
	if jsonvalue.SameMap(orig, patched) {
		return nil, nil
	}
	bufs := patchBuffers.Get().(*patchBuffer)
	defer bufs.put()
	enc := patchEncoder{b: bufs.patch[:0]}
	d := differ{out: &enc, keys: bufs.keys[:0]}
	err := d.maps(orig, patched, bufs.path[:0])
	bufs.patch, bufs.keys = enc.b, d.keys
	if err != nil || enc.n == 0 {
		return nil, err
	}
	out := make([]byte, len(enc.b)+1) // the one allocation of the JSONPatch
	copy(out, enc.b)
	out[len(enc.b)] = ']'
	return out, nil
}

// patchBuffer is the scratch of JSONPatch: the JSONPatch being written
// and the pointer being built.
type patchBuffer struct {
	patch, path []byte
	keys        []string
}

// patchBuffers keeps JSONPatch's scratch between requests.
var patchBuffers = sync.Pool{New: func() any {
	return &patchBuffer{patch: make([]byte, 0, 4096), path: make([]byte, 0, 256), keys: make([]string, 0, 64)}
}}

// put returns the scratch to patchBuffers unless it grew past 1 MiB of
// JSONPatch or 4,096 keys. The keys are cleared: they are slices of the
// request's document, which they would keep alive.
func (p *patchBuffer) put() {
	clear(p.keys[:cap(p.keys)])
	if cap(p.patch) <= 1<<20 && cap(p.keys) <= 4096 {
		patchBuffers.Put(p)
	}
}

// patchEncoder writes operations into one JSON array as they come.
type patchEncoder struct {
	b []byte
	n int // operations written
}

func (e *patchEncoder) emit(op string, path []byte, value any) error {
	if e.n == 0 {
		e.b = append(e.b, '[')
	} else {
		e.b = append(e.b, ',')
	}
	e.n++
	var err error
	e.b, err = appendOperation(e.b, op, unsafe.String(unsafe.SliceData(path), len(path)), value)
	return err
}

// appendOperation appends one operation as a JSON object.
func appendOperation(b []byte, op, path string, value any) ([]byte, error) {
	b = append(b, `{"op":"`...)
	b = append(b, op...)
	b = appendString(append(b, `","path":`...), path)
	if op != "remove" {
		var err error
		if b, err = appendJSON(append(b, `,"value":`...), value); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// encodePatch writes operations as the JSON array of RFC 6902 into one
// buffer, each value encoded once as encoding/json would (sorted keys;
// jsonpatch's own MarshalJSON marshals every operation twice over).
func encodePatch(ops []jsonpatch.Operation) ([]byte, error) {
	b := make([]byte, 0, 64*len(ops))
	b = append(b, '[')
	for i, op := range ops {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendOperation(b, op.Operation, op.Path, op.Value); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}
