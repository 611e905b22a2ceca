package kpatch

import (
	"context"
	"errors"
	"fmt"
)

// ErrBudget is a file that was not applied because the call ran out of
// its budget (see Budget) or its context was done. The error wraps the
// context's error too when that is why.
var ErrBudget = errors.New("budget exceeded")

// Budget bounds the work of one Apply call, across all its files; the
// zero value bounds nothing. The file being applied when the budget runs
// out is rolled back, and the files after it are not applied: each fails
// on the object with an ApplyError wrapping ErrBudget.
type Budget struct {
	// Items is how many map entries and list items the call may visit:
	// walk through, copy, select, compare or remove. 0: no limit.
	Items int
	// OutputBytes is how many bytes of values the call may write,
	// counted as their JSON text. 0: no limit.
	OutputBytes int
}

// ctxCheckEvery is how many items the applier visits between two looks
// at its context.
const ctxCheckEvery = 1024

// ApplyContext is Apply stopped by ctx: once ctx is done (its deadline
// passed, or it was cancelled), the file being applied is rolled back and
// no other file applies, each failing with an ApplyError wrapping
// ErrBudget and ctx's error. The context is looked at every 1,024 items
// visited and before each file.
func ApplyContext(ctx context.Context, obj map[string]any, patches []*Patch, opts ApplyOptions) (map[string]any, error) {
	return apply(ctx, obj, patches, opts)
}

// meter is what an Apply call has spent of its budget.
type meter struct {
	ctx       context.Context // nil: none that can be done
	budget    Budget
	items     int
	bytes     int
	nextCheck int      // items at which ctx is looked at next
	spent     *problem // why the budget ran out; nil while it has not
}

func (m *meter) start(ctx context.Context, b Budget) {
	*m = meter{budget: b}
	if ctx != nil && ctx.Done() != nil {
		m.ctx = ctx
	}
}

// count spends items visited and bytes written, and notes when the budget
// runs out. Loops over user data call it before they run; the walk stops
// at its next step.
func (m *meter) count(items, bytes int) {
	m.items += items
	m.bytes += bytes
	switch {
	case m.spent != nil:
	case m.budget.Items > 0 && m.items > m.budget.Items:
		m.spent = errorf(ErrBudget, "the budget of %d items visited is spent", m.budget.Items)
	case m.budget.OutputBytes > 0 && m.bytes > m.budget.OutputBytes:
		m.spent = errorf(ErrBudget, "the budget of %d bytes written is spent", m.budget.OutputBytes)
	case m.ctx != nil && m.items >= m.nextCheck:
		m.nextCheck = m.items + ctxCheckEvery
		m.checkContext()
	}
}

// checkContext notes a context that is done.
func (m *meter) checkContext() {
	if m.ctx == nil || m.spent != nil {
		return
	}
	if err := m.ctx.Err(); err != nil {
		m.spent = &problem{err: fmt.Errorf("%w: %w", ErrBudget, err), msg: "stopped: " + err.Error()}
	}
}

// setValueBytes counts the bytes of the value a plan writes.
func (a *applier) setValueBytes(pl *plan, val any) {
	if pl.tmpl == nil {
		a.valueBytes = pl.valueBytes
		return
	}
	a.valueBytes = jsonSize(val)
}

// jsonSize is about the length of a value's JSON text.
func jsonSize(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 2
		for k, e := range x {
			n += len(k) + 4 + jsonSize(e)
		}
		return n
	case []any:
		n := 2
		for _, e := range x {
			n += 1 + jsonSize(e)
		}
		return n
	case string:
		return len(x) + 2
	case nil:
		return 4
	case bool:
		return 5
	}
	return 8
}

// itemCount is how many map entries and list items a value holds, at any
// depth.
func itemCount(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			n += 1 + itemCount(e)
		}
	case []any:
		for _, e := range x {
			n += 1 + itemCount(e)
		}
	}
	return n
}
