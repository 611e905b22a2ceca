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
//	skipped    the file is indexed under the object's kind, name or
//	           namespace but no target of it matches the object
//
// The files are applied a second time for it, so it costs a second apply:
// a diagnostic, off at the default log level.

// Results of FileTrace besides FilePatched, FileUnchanged and FileFailed.
const fileSkipped = "skipped"

// maxTraceValue bounds a value in a trace line.
const maxTraceValue = 120

// FileTrace is what one candidate file did to one object.
type FileTrace struct {
	File    string   `json:"file"`
	Result  string   `json:"result"`
	Changes []string `json:"changes,omitempty"`
	Reason  string   `json:"reason,omitempty"`
}

// traceFiles applies patches to obj one at a time, each to the result of
// the ones before, as the handler does (rr runs the replacements files;
// nil when the registry has none), and says what each did.
func traceFiles(ctx context.Context, obj map[string]any, patches []*kpatch.Patch, rr *replacementRun, opts kpatch.ApplyOptions) []FileTrace {
	ref := kpatch.RefOf(obj, opts.Namespace)
	out := make([]FileTrace, 0, len(patches))
	cur := obj
	for i, p := range patches {
		tr := FileTrace{File: p.Name()}
		if !rr.targets(p, cur, &ref) {
			tr.Result, tr.Reason = fileSkipped, "no target of the file matches the object"
			out = append(out, tr)
			continue
		}
		next, err := rr.applyFile(ctx, patches[i:i+1], cur, opts)
		switch {
		case err != nil:
			tr.Result, tr.Reason = FileFailed, strings.Join(failureMessages(err), "; ")
		default:
			tr.Changes = changesBetween(cur, next)
			tr.Result = FileUnchanged
			if len(tr.Changes) > 0 {
				tr.Result, cur = FilePatched, next
			}
		}
		out = append(out, tr)
	}
	return out
}

// logTrace logs the debug view of the object, when the logger's debug
// level is on.
func logTrace(ctx context.Context, log logr.Logger, obj map[string]any, patches []*kpatch.Patch, rr *replacementRun, opts kpatch.ApplyOptions) {
	if debug := log.V(1); debug.Enabled() {
		debug.Info("patch files traced", "files", traceFiles(ctx, obj, patches, rr, opts))
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
