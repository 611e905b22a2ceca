package admit

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
	"gomodules.xyz/jsonpatch/v2"

	"kpatch.dev/kpatch/pkg/apply"
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

// Results of FileTrace besides apply.Patched, apply.Unchanged and
// apply.Failed.
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

// logTrace logs the debug view of the object, when the logger's debug
// level is on: the candidate files run through the loop again, each
// observed (traceRun).
func logTrace(ctx context.Context, log logr.Logger, obj map[string]any, candidates, bound []apply.File, leftOut []apply.FileRun, opts *apply.Options) {
	if debug := log.V(1); debug.Enabled() {
		debug.Info("patch files traced", "files", traceRun(ctx, obj, traced(candidates, bound, leftOut), opts))
	}
}

// traced are the candidate files as the trace runs them, in order: the
// bound version of each one that applies (bindValues), the ones
// the object's values or metadata leave out failing with why, the ones
// they disable (enabled: false for the object) disabled.
func traced(candidates, bound []apply.File, leftOut []apply.FileRun) []apply.File {
	out := make([]apply.File, 0, len(candidates))
	for _, c := range candidates {
		switch i := slices.IndexFunc(leftOut, func(r apply.FileRun) bool { return r.File == c }); {
		case i >= 0:
			out = append(out, apply.Failing(c, leftOut[i].Err))
		case len(bound) > 0 && bound[0].Name() == c.Name():
			out, bound = append(out, bound[0]), bound[1:]
		default:
			out = append(out, apply.Disabling(c, "its enabled: metadata is false for the object", false))
		}
	}
	return out
}

// traceRun applies the files to obj one at a time, each to the result of
// the ones before, as Admit does, and says what each did.
func traceRun(ctx context.Context, obj map[string]any, files []apply.File, opts *apply.Options) []FileTrace {
	out := make([]FileTrace, 0, len(files))
	observed := *opts
	observed.NewMap = nil // the trace makes its own maps: it reads each file's before and after
	observed.NewList = nil
	observed.Observer = apply.ObserverFunc(func(_ int, r apply.FileRun, before, after map[string]any) {
		tr := FileTrace{File: r.File.Name(), Result: r.Result}
		switch r.Result {
		case apply.Unmatched:
			tr.Result, tr.Reason = fileSkipped, "no target of the file matches the object"
		case apply.Failed, apply.Disabled, apply.Immutable:
			tr.Reason = strings.Join(FailureMessages(r.Err), "; ")
		default:
			if tr.Changes = changesBetween(before, after); len(tr.Changes) == 0 {
				tr.Result = apply.Unchanged
			}
		}
		out = append(out, tr)
	})
	if _, err := apply.RunObject(ctx, obj, files, &observed); err != nil {
		return append(out, FileTrace{Result: apply.Failed, Reason: err.Error()})
	}
	return out
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
