package condition

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestItemDeclaredOnlyWithOption: item is undeclared without
// Options.Item, with a message that says where it is declared.
func TestItemDeclaredOnlyWithOption(t *testing.T) {
	_, err := Compile("item.name == 'a'", Options{})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "undeclared reference to 'item'") || !strings.Contains(err.Error(), "walks list items") {
		t.Fatalf("err = %v, want an undeclared item that says where item is declared", err)
	}
	if _, err := Compile("item.name == 'a'", Options{Item: true}); err != nil {
		t.Fatal(err)
	}
}

// TestItemEvaluatedPerItem: one Vars serves every item, which Input.Item
// gives at each evaluation: a map, a scalar.
func TestItemEvaluatedPerItem(t *testing.T) {
	scalar, err := Compile("item == '--debug'", Options{Item: true})
	if err != nil {
		t.Fatal(err)
	}
	hostPath, err := Compile("has(item.hostPath)", Options{Item: true})
	if err != nil {
		t.Fatal(err)
	}
	in := &Input{Object: map[string]any{}}
	vars := NewVars(in)
	for _, tc := range []struct {
		c    *Condition
		item any
		want bool
	}{
		{scalar, "--debug", true},
		{scalar, "--verbose", false},
		{hostPath, map[string]any{"name": "h", "hostPath": map[string]any{"path": "/"}}, true},
		{hostPath, map[string]any{"name": "e", "emptyDir": map[string]any{}}, false},
	} {
		c := tc.c
		in.Item = tc.item
		got, err := c.Eval(context.Background(), vars, nil)
		if err != nil || got != tc.want {
			t.Errorf("item %v: got %v, %v; want %v", tc.item, got, err, tc.want)
		}
	}
}

// TestItemSizedAsItemOfItsList: with ItemPaths the estimate sizes item
// as an item of that list (a capability list of a container: its items
// are strings), without them as any JSON value of the request; the
// estimate of one is not the other's.
func TestItemSizedAsItemOfItsList(t *testing.T) {
	containers := [][]string{{"spec", "containers", "@items"}}
	typed := costOf(t, "item.name.size() > 1", Options{Item: true, ItemPaths: containers})
	untyped := costOf(t, "item.name.size() > 1", Options{Item: true})
	if typed != untyped {
		t.Errorf("size() costs the same whatever the size: %d, %d", typed, untyped)
	}
	typed = costOf(t, "item.ports.exists(p, p.containerPort == 80)", Options{Item: true, ItemPaths: containers})
	untyped = costOf(t, "item.ports.exists(p, p.containerPort == 80)", Options{Item: true})
	if typed >= untyped {
		t.Errorf("ports of a container estimated %d, not below the %d of any list", typed, untyped)
	}
	object := costOf(t, "object.spec.containers[0].ports.exists(p, p.containerPort == 80)", Options{})
	if typed > object || object-typed > 1 { // [0] costs one
		t.Errorf("item's ports estimated %d, object.spec.containers[0].ports %d", typed, object)
	}
}

// costOf is the estimated worst-case cost of expr.
func costOf(t *testing.T, expr string, opts Options) uint64 {
	t.Helper()
	_, err := compile(expr, opts, 0)
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("%s: %v, want a cost error", expr, err)
	}
	var cost uint64
	if _, scanErr := fmt.Sscanf(ce.Msg, "estimated worst-case cost %d", &cost); scanErr != nil {
		t.Fatalf("%s: %q: %v", expr, ce.Msg, scanErr)
	}
	return cost
}

// TestItemConditionWithinItemCostLimit: a mount's look-up of its volume
// is beyond the per-call limit on the largest objects, and within
// ItemCostLimit as an item condition (a volume's name being a DNS label).
func TestItemConditionWithinItemCostLimit(t *testing.T) {
	mounts := [][]string{{"spec", "containers", "@items", "volumeMounts", "@items"}}
	expr := "object.spec.volumes.exists(v, v.name == item.name && has(v.hostPath))"
	if _, err := Compile(expr, Options{Item: true, ItemPaths: mounts}); err != nil {
		t.Fatal(err)
	}
	cost := costOf(t, expr, Options{Item: true, ItemPaths: mounts})
	if cost <= 1_000_000 || cost > ItemCostLimit {
		t.Errorf("estimate %d: want beyond the per-call limit and within ItemCostLimit", cost)
	}
	if _, err := Compile(strings.ReplaceAll(expr, "item.name", "object.spec.containers[0].volumeMounts[0].name"), Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("the same look-up as a section's condition: %v, want over the per-call limit", err)
	}
}

// TestReadsItem: a condition compiled with Options.Item reads item or
// does not.
func TestReadsItem(t *testing.T) {
	for expr, want := range map[string]bool{
		"has(item.hostPath)":         true,
		"object.metadata.name == ''": false,
	} {
		c, err := Compile(expr, Options{Item: true})
		if err != nil || c.ReadsItem() != want {
			t.Errorf("%s: ReadsItem %v (%v), want %v", expr, c != nil && c.ReadsItem(), err, want)
		}
	}
}

// TestItemSelections: the fields of item a condition selects, in has()
// too, with the column of item in the expression.
func TestItemSelections(t *testing.T) {
	c, err := Compile("has(item.securityContext) && item.securityContext.privileged == true", Options{Item: true})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(c.ItemSelections())
	if want := "[{[securityContext] 1 5} {[securityContext privileged] 1 30}]"; got != want {
		t.Errorf("ItemSelections = %s, want %s", got, want)
	}
}
