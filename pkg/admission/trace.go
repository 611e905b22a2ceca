package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
	"gomodules.xyz/jsonpatch/v2"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// The debug view of one admitted object: with --zap-log-level=debug, the
// handler logs one line per object it may patch ("patch files traced"),
// listing the registry's candidate files for it in the order they apply
// and what each did, the same view as kpatch explain:
//
//	patched    the file changed the object: each change as
//	           "op /json/pointer: old -> new"
//	unchanged  a target matched and the file changed nothing
//	failed     the file failed on the object and left it as it was: why
//	           (the object's values or the file's metadata may leave it
//	           out too)
//	disabled   the file's enabled: metadata is false for the object
//	skipped    the file is indexed under the object's kind, name or
//	           namespace but no target of it matches the object
//
// The files are applied a second time for it, so it costs a second apply:
// a diagnostic, off at the default log level.

// Results of FileTrace besides FilePatched, FileUnchanged and FileFailed.
const (
	fileSkipped  = "skipped"
	fileDisabled = "disabled"
)

// maxTraceValue bounds a value in a trace line.
const maxTraceValue = 120

// FileTrace is what one candidate file did to one object.
type FileTrace struct {
	File    string   `json:"file"`
	Result  string   `json:"result"`
	Changes []string `json:"changes,omitempty"`
	Reason  string   `json:"reason,omitempty"`
}

// traceRun is what the debug view of one object is made of: the
// candidate files, in order; the ones that apply, bound to the object's
// values (Handler.bindValues); those its values or metadata leave out
// (failed); and the run of the replacements files (nil when the registry
// has none).
type traceRun struct {
	candidates, bound []*kpatch.Patch
	leftOut           []fileRun
	rr                *replacementRun
	opts              kpatch.ApplyOptions
}

// traceFiles applies the bound files to obj one at a time, each to the
// result of the ones before, as the handler does, and says what each
// candidate did: a file that its values or metadata leave out failed; one
// they disable (enabled: false for the object) is disabled.
func traceFiles(ctx context.Context, obj map[string]any, t *traceRun) []FileTrace {
	ref := kpatch.RefOf(obj, t.opts.Namespace)
	bound := make(map[string]*kpatch.Patch, len(t.bound))
	for _, p := range t.bound {
		bound[p.Name()] = p
	}
	out := make([]FileTrace, 0, len(t.candidates))
	cur := obj
	for _, c := range t.candidates {
		tr := FileTrace{File: c.Name()}
		p, applies := bound[tr.File]
		switch i := slices.IndexFunc(t.leftOut, func(r fileRun) bool { return r.file == tr.File }); {
		case !t.rr.targets(c, cur, &ref):
			tr.Result, tr.Reason = fileSkipped, "no target of the file matches the object"
		case i >= 0:
			tr.Result, tr.Reason = FileFailed, strings.Join(failureMessages(t.leftOut[i].err), "; ")
		case !applies:
			tr.Result, tr.Reason = fileDisabled, "its enabled: metadata is false for the object"
		default:
			tr, cur = t.apply(ctx, tr, p, cur)
		}
		out = append(out, tr)
	}
	return out
}

// apply applies one file that applies to the object, cur, and records
// what it did in tr; it returns cur as the file leaves it.
func (t *traceRun) apply(ctx context.Context, tr FileTrace, p *kpatch.Patch, cur map[string]any) (FileTrace, map[string]any) {
	next, err := t.rr.applyFile(ctx, []*kpatch.Patch{p}, cur, t.opts)
	if err != nil {
		tr.Result, tr.Reason = FileFailed, strings.Join(failureMessages(err), "; ")
		return tr, cur
	}
	tr.Changes = changesBetween(cur, next)
	tr.Result = FileUnchanged
	if len(tr.Changes) > 0 {
		tr.Result, cur = FilePatched, next
	}
	return tr, cur
}

// logTrace logs the debug view of the object, when the logger's debug
// level is on.
func logTrace(ctx context.Context, log logr.Logger, obj map[string]any, t *traceRun) {
	if debug := log.V(1); debug.Enabled() {
		debug.Info("patch files traced", "files", traceFiles(ctx, obj, t))
	}
}

// changesBetween lists the changes from a to b: "op path: old -> new".
func changesBetween(a, b map[string]any) []string {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return []string{fmt.Sprintf("the result cannot be encoded: %v", firstError(errA, errB))}
	}
	ops, err := jsonpatch.CreatePatch(ja, jb)
	if err != nil {
		return []string{err.Error()}
	}
	// the library's order follows map iteration: by path, for one line a
	// change on every run
	slices.SortStableFunc(ops, func(x, y jsonpatch.Operation) int { return strings.Compare(x.Path, y.Path) })
	var out []string
	for _, op := range ops {
		old, had := pointerValue(a, op.Path)
		switch {
		case op.Operation == "remove":
			out = append(out, fmt.Sprintf("remove %s: %s", op.Path, traceValue(old)))
		case had:
			out = append(out, fmt.Sprintf("%s %s: %s -> %s", op.Operation, op.Path, traceValue(old), traceValue(op.Value)))
		default:
			out = append(out, fmt.Sprintf("%s %s: %s", op.Operation, op.Path, traceValue(op.Value)))
		}
	}
	return out
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// pointerValue returns the value at an RFC 6901 pointer of obj.
func pointerValue(obj map[string]any, pointer string) (any, bool) {
	var cur any = obj
	for _, tok := range strings.Split(pointer, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// traceValue formats a value as JSON, cut to maxTraceValue bytes.
func traceValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > maxTraceValue {
		return string(b[:maxTraceValue]) + "..."
	}
	return string(b)
}

// opts are the options the handler applies files to an object of
// namespace with.
func (h *Handler) opts(namespace string) kpatch.ApplyOptions {
	return kpatch.ApplyOptions{Namespace: namespace, Budget: h.budget()}
}
