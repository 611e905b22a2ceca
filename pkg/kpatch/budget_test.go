package kpatch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// budgetPatches are a file that sets a field on every container and a
// file that sets a label.
func budgetPatches(t *testing.T) []*Patch {
	return []*Patch{
		mustPatch(t, "pull.kpatch", "[pod.*.containers]\nimagePullPolicy: Always\n"),
		mustPatch(t, "label.kpatch", "# a label\n[pod.*]\nlabels.team: web\n"),
	}
}

// wantNotApplied checks that err holds one ApplyError wrapping ErrBudget
// per file, at the wanted positions, and that obj did not change.
func wantNotApplied(t *testing.T, out, obj map[string]any, err error, positions ...string) {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) || len(list) != len(positions) {
		t.Fatalf("want %d errors, got %v", len(positions), err)
	}
	for i, e := range list {
		var ae *ApplyError
		if !errors.As(e, &ae) || !errors.Is(e, ErrBudget) || ae.Pos.String() != positions[i] {
			t.Errorf("error %d: want an ApplyError wrapping ErrBudget at %s, got %v", i, positions[i], e)
		}
	}
	if !equalValue(out, obj) {
		t.Errorf("the object changed")
	}
}

func TestBudgetItems(t *testing.T) {
	obj := longPod(10_000)
	out, err := Apply(obj, budgetPatches(t), ApplyOptions{Budget: Budget{Items: 5_000}})
	wantNotApplied(t, out, obj, err, "pull.kpatch:2:1", "label.kpatch:2:2")
	if !strings.Contains(err.Error(), "not applied: the budget of 5000 items visited is spent") {
		t.Errorf("message: %v", err)
	}
	if _, err := Apply(obj, budgetPatches(t), ApplyOptions{Budget: Budget{Items: 100_000}}); err != nil {
		t.Errorf("within the budget: %v", err)
	}
}

func TestBudgetOutputBytes(t *testing.T) {
	obj := longPod(100)
	out, err := Apply(obj, budgetPatches(t), ApplyOptions{Budget: Budget{OutputBytes: 500}})
	wantNotApplied(t, out, obj, err, "pull.kpatch:2:1", "label.kpatch:2:2")
	if _, err := Apply(obj, budgetPatches(t), ApplyOptions{Budget: Budget{OutputBytes: 5_000}}); err != nil {
		t.Errorf("within the budget: %v", err)
	}
}

func TestApplyContextDone(t *testing.T) {
	obj := longPod(10)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := ApplyContext(ctx, obj, budgetPatches(t), ApplyOptions{})
	wantNotApplied(t, out, obj, err, "pull.kpatch:1:2", "label.kpatch:2:2")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("want the context's error wrapped, got %v", err)
	}
	if _, err := ApplyContext(context.Background(), obj, budgetPatches(t), ApplyOptions{}); err != nil {
		t.Error(err)
	}
}

// TestBudgetStrategic spends the budget on a strategic merge patch: the
// object's items are counted before the merge library runs.
func TestBudgetStrategic(t *testing.T) {
	obj := longPod(1_000)
	p := mustPatch(t, "s.yaml", "- target: pod.*\n  type: strategic\n  patch: {metadata: {labels: {a: b}}}\n")
	out, err := p.Apply(obj, ApplyOptions{Budget: Budget{Items: 1_000}})
	wantNotApplied(t, out, obj, err, "s.yaml:1:3")
}

// bigValueFile is a file of n entries, each an annotation holding the
// variable big.
func bigValueFile(n int) string {
	var b strings.Builder
	b.WriteString("[deployment.web]\n")
	for i := range n {
		fmt.Fprintf(&b, "annotations.a%d: ${values.big}\n", i)
	}
	return b.String()
}

// TestExpansionLimits binds a 100 KB variable referenced by 1,000
// entries: past 3 MiB the file fails where it crosses the limit, when
// bound and when applied; a value of 1.2 MB built from variables fails
// alone.
func TestExpansionLimits(t *testing.T) {
	vars := &Variables{Values: map[string]any{"big": strings.Repeat("x", 100_000)}}
	p := mustPatch(t, "big.kpatch", bigValueFile(1000))
	_, err := p.Bind(vars)
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrLimit) || pe.Pos.Line != 33 {
		t.Fatalf("want a ParseError wrapping ErrLimit at line 33, got %v", err)
	}
	if _, err := mustPatch(t, "ok.kpatch", bigValueFile(31)).Bind(vars); err != nil {
		t.Errorf("31 references: %v", err)
	}
	obj := mustObject(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
	out, err := p.WithVariables(vars).Apply(obj, ApplyOptions{})
	var ae *ApplyError
	if !errors.As(err, &ae) || !errors.Is(err, ErrLimit) || ae.Pos.Line != 33 || !equalValue(out, obj) {
		t.Errorf("want an ApplyError wrapping ErrLimit at line 33 and the object unchanged, got %v", err)
	}
	if list, _ := err.(ErrorList); len(list) != 1 {
		t.Errorf("the file goes on past the limit: %d errors", len(list))
	}
	twice := mustPatch(t, "twice.kpatch", "[deployment.web]\nannotations.a: ${values.big}${values.big}\n")
	vars.Values["big"] = strings.Repeat("x", 600_000)
	if _, err := twice.Bind(vars); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "twice.kpatch:2:16: the value built from variables would be 1200000 bytes") {
		t.Errorf("want ErrLimit at the value, got %v", err)
	}
}
